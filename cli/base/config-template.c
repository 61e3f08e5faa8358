/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The comments notmuch's setup writes into a configuration file (notmuch-config.c's
 * toplevel_config_comment and group_comment_table, word for word), so that a file `setup` writes is
 * the file notmuch's would be and notmuch users find the comments they know. It must not decide
 * any value: config-file.c and cmd-setup.c do. */
#include "config-file.h"

static const char top_comment[] =
    " .notmuch-config - Configuration file for the notmuch mail system\n"
    "\n"
    " For more information about notmuch, see https://notmuchmail.org";

static const struct {
    const char *group, *comment;
} groups[] = {
    {"database", " Database configuration\n"
                 "\n"
                 " The only value supported here is 'path' which should be the top-level\n"
                 " directory where your mail currently exists and to where mail will be\n"
                 " delivered in the future. Files should be individual email messages.\n"
                 " Notmuch will store its database within a sub-directory of the path\n"
                 " configured here named \".notmuch\".\n"},
    {"user", " User configuration\n"
             "\n"
             " Here is where you can let notmuch know how you would like to be\n"
             " addressed. Valid settings are\n"
             "\n"
             "\tname\t\tYour full name.\n"
             "\tprimary_email\tYour primary email address.\n"
             "\tother_email\tA list (separated by ';') of other email addresses\n"
             "\t\t\tat which you receive email.\n"
             "\n"
             " Notmuch will use the various email addresses configured here when\n"
             " formatting replies. It will avoid including your own addresses in the\n"
             " recipient list of replies, and will set the From address based on the\n"
             " address to which the original email was addressed.\n"},
    {"new", " Configuration for \"notmuch new\"\n"
            "\n"
            " The following options are supported here:\n"
            "\n"
            "\ttags\tA list (separated by ';') of the tags that will be\n"
            "\t\tadded to all messages incorporated by \"notmuch new\".\n"
            "\n"
            "\tignore\tA list (separated by ';') of file and directory names\n"
            "\t\tthat will not be searched for messages by \"notmuch new\".\n"
            "\n"
            "\t\tNOTE: *Every* file/directory that goes by one of those\n"
            "\t\tnames will be ignored, independent of its depth/location\n"
            "\t\tin the mail store.\n"},
    {"search", " Search configuration\n"
               "\n"
               " The following option is supported here:\n"
               "\n"
               "\texclude_tags\n"
               "\t\tA ;-separated list of tags that will be excluded from\n"
               "\t\tsearch results by default.  Using an excluded tag in a\n"
               "\t\tquery will override that exclusion.\n"},
    {"maildir", " Maildir compatibility configuration\n"
                "\n"
                " The following option is supported here:\n"
                "\n"
                "\tsynchronize_flags      Valid values are true and false.\n"
                "\n"
                "\tIf true, then the following maildir flags (in message filenames)\n"
                "\twill be synchronized with the corresponding notmuch tags:\n"
                "\n"
                "\t\tFlag\tTag\n"
                "\t\t----\t-------\n"
                "\t\tD\tdraft\n"
                "\t\tF\tflagged\n"
                "\t\tP\tpassed\n"
                "\t\tR\treplied\n"
                "\t\tS\tunread (added when 'S' flag is not present)\n"
                "\n"
                "\tThe \"notmuch new\" command will notice flag changes in filenames\n"
                "\tand update tags, while the \"notmuch tag\" and \"notmuch restore\"\n"
                "\tcommands will notice tag changes and update flags in filenames\n"},
};

void config_add_notmuch_comments(struct config *cfg)
{
    if (!cfg->loaded)
        g_key_file_set_comment(cfg->kf, NULL, NULL, top_comment, NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(groups); i++) {
        if (g_key_file_has_group(cfg->kf, groups[i].group))
            continue;
        /* GKeyFile makes a group only for a key; the placeholder goes again at once. */
        g_key_file_set_value(cfg->kf, groups[i].group, "placeholder", "");
        g_key_file_remove_key(cfg->kf, groups[i].group, "placeholder", NULL);
        g_key_file_set_comment(cfg->kf, groups[i].group, NULL, groups[i].comment, NULL);
    }
}
