;;; steps.el --- the workflows of T500-emacs, as a person goes through them  -*- lexical-binding: t -*-
;; SPDX-License-Identifier: GPL-3.0-or-later

;; One step per workflow, run in this order on one Emacs and one Maildir, each continuing where the
;; one before left off (the buffers stay, the tags changed stay).  Each step lists the commands it
;; needs beyond config, search, count and tag, including those of earlier steps whose changes it
;; sees, so that a program without them skips it rather than fail on what a skipped step would have
;; done.  Steps only type keys and read screens (maildex-test.el); their expected output is
;; test/expected/emacs/NAME.out.

(require 'maildex-test)

(defun steps--search-buffer (query)
  "The search buffer of QUERY, which an earlier step opened."
  (or (cl-find-if (lambda (b)
                    (with-current-buffer b
                      (and (derived-mode-p 'notmuch-search-mode)
                           (equal notmuch-search-query-string query))))
                  (buffer-list))
      (error "no search buffer for %s" query)))

(defun steps--tags-of (&rest ids)
  "Print the tags of the messages IDS, as the program under test has them."
  (dolist (id ids)
    (maildex-test-program "search" "--output=tags" (concat "id:" id))))

;;; notmuch-hello, searching, tagging: what maildex has today

(maildex-test-step "01-hello" "notmuch-hello: saved-search counts, all tags, message total" ()
  (maildex-test-keys "M-x notmuch RET")
  (maildex-test-goto (current-buffer) "[show]")
  (maildex-test-keys "RET")
  (maildex-test-screen))

(maildex-test-step "02-search-oldest-first" "notmuch-search oldest first: date, [matched/total], authors, subject, tags" ()
  (maildex-test-keys "s tag:inbox RET")
  (maildex-test-screen))

(maildex-test-step "03-search-newest-first" "notmuch-search newest first (o)" ()
  (maildex-test-keys "o")
  (maildex-test-screen))

(maildex-test-step "04-search-matched-authors" "notmuch-search: authors with and without matches, [matched/total]" ()
  (maildex-test-keys "s tag:unread RET")
  (maildex-test-screen)
  (maildex-test-keys "s from:erin RET")
  (maildex-test-screen))

(maildex-test-step "05-search-tagging" "tagging from notmuch-search: +, -, k, archive a" ()
  (let ((inbox (steps--search-buffer "tag:inbox")))
    (maildex-test-goto inbox "Spring newsletter")
    (maildex-test-keys "+ newsletter RET")
    (maildex-test-line)
    (steps--tags-of "news-2002-04@example.com")
    (maildex-test-keys "- unread RET")
    (maildex-test-line)
    (steps--tags-of "news-2002-04@example.com")
    ;; no longer unread, so Seen: the file moves from new/ to cur/ and gets its S flag
    (maildex-test-program "search" "--output=files" "id:news-2002-04@example.com")
    (maildex-test-goto inbox "Résumé")
    (maildex-test-keys "k u")
    (maildex-test-line)
    (steps--tags-of "resume-1@example.fr" "resume-2@example.de")
    (maildex-test-goto inbox "[dev]")
    (maildex-test-keys "k f")
    (maildex-test-line)
    (maildex-test-keys "a")
    (maildex-test-goto inbox "[dev]")
    (maildex-test-line)
    (steps--tags-of "dev-1@lists.example.org" "dev-2@lists.example.org")
    (maildex-test-program "search" "--output=files" "tag:flagged")
    (maildex-test-program "search" "tag:inbox")
    (maildex-test-screen)))

(maildex-test-step "06-hello-after-changes" "notmuch-hello again after the changes" ()
  (maildex-test-keys "M-x notmuch RET")
  (maildex-test-screen))

(maildex-test-step "07-poll" "new mail arrives, G in notmuch-hello runs new and refreshes" ()
  (copy-file (expand-file-name "later/1000000014.dev3" maildex-test-corpus)
             (expand-file-name "lists/dev/new/1000000014.dev3" maildex-test-mail))
  (maildex-test-keys "M-x notmuch RET")
  (maildex-test-keys "G")
  (maildex-test-screen)
  (maildex-test-program "search" "--output=tags" "id:dev-3@lists.example.org"))

(maildex-test-step "08-version" "M-x notmuch-version reads the program's --version" ()
  (maildex-test-keys "M-x notmuch-version RET")
  ;; the echo area, which without a display only *Messages* keeps
  (maildex-test-print "echo area: %s"
                      (replace-regexp-in-string "[0-9]+\\(\\.[0-9]+\\)+" "N" (steps--last-message))))

(defun steps--last-message ()
  "The last line of *Messages*."
  (with-current-buffer "*Messages*"
    (goto-char (point-max))
    (skip-chars-backward "\n")
    (buffer-substring-no-properties (line-beginning-position) (point))))

;;; The views that need `show'

(maildex-test-step "09-tree" "notmuch-tree of tag:inbox (Z)" ("show")
  (switch-to-buffer (steps--search-buffer "tag:inbox"))
  (maildex-test-keys "Z")
  (maildex-test-screen))

(maildex-test-step "10-unthreaded" "notmuch-unthreaded of tag:inbox (U)" ("show")
  (switch-to-buffer (steps--search-buffer "tag:inbox"))
  (maildex-test-keys "U")
  (maildex-test-screen))

(maildex-test-step "11-show-thread" "notmuch-show of a thread: headers, bodies, quoted text" ("show")
  (maildex-test-goto (steps--search-buffer "tag:inbox") "Garden party")
  (maildex-test-keys "RET")
  (maildex-test-screen)
  (let ((thread (current-buffer)))
    ;; the raw message (V), and the message and the thread piped to a command (|, C-u |)
    (maildex-test-keys "V")
    (maildex-test-screen)
    (maildex-test-goto thread "Alice Example <alice@example.org> (")
    (maildex-test-keys "| grep SPC ^Subject: RET")
    (maildex-test-screen nil (get-buffer "*notmuch-pipe*"))
    (maildex-test-keys "C-u | grep SPC -c SPC ^Message-ID: RET")
    (maildex-test-screen nil (get-buffer "*notmuch-pipe*"))))

(maildex-test-step "12-show-html" "notmuch-show: the HTML alternative hidden, then shown" ("show")
  (maildex-test-goto (steps--search-buffer "tag:inbox") "Spring newsletter")
  (maildex-test-keys "RET")
  (maildex-test-screen)
  (maildex-test-goto (current-buffer) "[ text/html (hidden) ]")
  (maildex-test-keys "RET")
  (maildex-test-screen))

(maildex-test-step "13-show-attachment" "notmuch-show: the PDF attachment's button and the bytes it saves" ("show")
  (maildex-test-goto (steps--search-buffer "tag:inbox") "Minutes of the meeting")
  (maildex-test-keys "RET")
  (maildex-test-screen)
  (maildex-test-goto (current-buffer) "[ minutes.pdf")
  (let ((saved (expand-file-name "saved-minutes.pdf" maildex-test-out)))
    (maildex-test-keys (concat ". s C-a C-k " saved " RET"))
    (maildex-test-print "saved: %s" (if (file-exists-p saved)
                                        (steps--compare-files
                                         saved (expand-file-name "minutes.pdf" maildex-test-corpus))
                                      "nothing"))))

(defun steps--compare-files (a b)
  "Whether the files A and B hold the same bytes, said in words."
  (let ((bytes (lambda (f) (with-temp-buffer
                             (set-buffer-multibyte nil)
                             (insert-file-contents-literally f)
                             (buffer-string)))))
    (if (equal (funcall bytes a) (funcall bytes b))
        (format "%d bytes, the same as the attachment" (file-attribute-size (file-attributes a)))
      (format "%d bytes, which differ from the attachment's %d" (file-attribute-size (file-attributes a))
              (file-attribute-size (file-attributes b))))))

(maildex-test-step "14-show-signed" "notmuch-show: the signature status button" ("show")
  (maildex-test-goto (steps--search-buffer "tag:inbox") "Signed release notes")
  (maildex-test-keys "RET")
  (maildex-test-screen))

(maildex-test-step "15-show-encrypted" "notmuch-show: the decrypted text" ("show")
  (maildex-test-goto (steps--search-buffer "tag:inbox") "The door code")
  (maildex-test-keys "RET")
  (maildex-test-screen)
  (steps--tags-of "encrypted-1@example.org"))

(maildex-test-step "16-show-tagging" "tagging from notmuch-show: +, -, k, archive a" ("show")
  (maildex-test-goto (steps--search-buffer "tag:inbox") "The door code")
  (maildex-test-keys "RET")
  (maildex-test-keys "+ secret RET")
  (maildex-test-keys "- encrypted RET")
  (maildex-test-keys "k f")
  (maildex-test-screen)
  (steps--tags-of "encrypted-1@example.org")
  (maildex-test-keys "a")
  (steps--tags-of "encrypted-1@example.org")
  ;; archiving the thread's last message goes on to the next thread
  (maildex-test-screen))

;;; Replying and sending, which need `reply', `insert' and `address'

(defun steps--sent (n)
  "Print the message the mock sendmail got the Nth time, and its arguments."
  (let ((maildex-test-sent t)
        (base (expand-file-name (format "sent-%d" n) maildex-test-out)))
    (dolist (file (list (concat base ".args") (concat base ".eml")))
      (maildex-test-print "--- %s ---" (file-name-nondirectory file))
      (maildex-test-print "%s" (if (file-exists-p file)
                                   (maildex-test-sanitize
                                    (with-temp-buffer
                                      (insert-file-contents file)
                                      (buffer-string)))
                                 "(nothing sent)")))))

(maildex-test-step "17-reply-all" "reply-all from notmuch-show (R): headers and quoted text" ("show" "reply")
  (maildex-test-goto (steps--search-buffer "tag:inbox") "Garden party")
  (maildex-test-keys "RET")
  (maildex-test-goto (current-buffer) "Carol <carol@example.net> (")
  (maildex-test-keys "R")
  (maildex-test-screen))

(maildex-test-step "18-send-reply" "sending the reply: mock sendmail, Fcc through insert, found by search" ("show" "reply" "insert")
  (maildex-test-keys "M-> RET See SPC you SPC at SPC three. RET C-c C-c")
  (steps--sent 0)
  (let ((maildex-test-sent t))
    (maildex-test-program "search" "--output=files" "from:tester@example.org")
    (maildex-test-program "search" "--output=tags" "from:tester@example.org")
    (steps--tags-of "garden-3@example.net")
    (maildex-test-keys "s from:tester@example.org RET")
    (maildex-test-screen)))

(maildex-test-step "19-address-completion" "a new message: address completion from address" ("show" "reply" "insert" "address")
  (maildex-test-keys "M-x notmuch RET")
  (maildex-test-keys "m")
  ;; one candidate is put in at once; of several, the minibuffer completes among them
  (maildex-test-keys "ca TAB")
  (maildex-test-keys "C-c C-f C-c a TAB TAB RET")
  (maildex-test-screen))

(maildex-test-step "20-send-new" "sending the new message, found by search" ("show" "reply" "insert" "address")
  (maildex-test-keys "C-c C-f C-s Lunch SPC on SPC Friday? C-c C-b Shall SPC we? RET")
  (maildex-test-screen)
  (maildex-test-keys "C-c C-c")
  (steps--sent 1)
  (let ((maildex-test-sent t))
    (maildex-test-program "search" "--output=files" "subject:lunch")
    (maildex-test-program "search" "--output=tags" "subject:lunch")))

(maildex-test-step "21-draft" "a draft: postponed, found, resumed (e) and sent" ("show" "reply" "insert" "address")
  (maildex-test-keys "M-x notmuch RET")
  (maildex-test-keys "m bob@example.com C-c C-f C-s The SPC grill C-c C-b Bring SPC charcoal. RET")
  (maildex-test-keys "C-c C-p")
  (let ((maildex-test-sent t))
    (maildex-test-program "search" "--output=tags" "tag:draft")
    (maildex-test-keys "M-x notmuch RET")
    (maildex-test-keys "s tag:draft RET")
    (maildex-test-screen)
    (maildex-test-keys "RET")
    (maildex-test-screen)
    (maildex-test-keys "e")
    ;; the buffer is named after the draft's generated Message-ID
    (maildex-test-screen "the resumed draft")
    (maildex-test-keys "C-c C-c")
    (steps--sent 2)
    (maildex-test-program "search" "--output=tags" "subject:grill")))

;;; Tag completion and drafts, the last of notmuch.el's entry points

(maildex-test-step "22-tag-completion" "tag completion: + and - offer tags, t offers those of the results, excluded mail's too" ("show" "reply" "insert" "address")
  (let ((inbox (steps--search-buffer "tag:inbox")))
    ;; + offers every tag to add; a few letters and TAB complete to the one tag they start
    (maildex-test-goto inbox "Minutes of the meeting")
    (maildex-test-keys "+ <f12> TAB <f12> sec TAB <f12> RET")
    (maildex-test-line)
    ;; - offers the thread's own tags to remove
    (maildex-test-keys "- TAB <f12> sec TAB RET")
    (maildex-test-line)
    ;; mail tagged spam leaves the results (search.exclude_tags), but filtering the results by a
    ;; tag (t) still offers its tags: they come from `search --output=tags --exclude=false QUERY'
    (maildex-test-goto inbox "Signed release notes")
    (maildex-test-keys "+ spam SPC +junk RET")
    (maildex-test-line)
    (maildex-test-keys "t TAB <f12> sp TAB RET")
    (maildex-test-screen)))

(maildex-test-step "23-draft-save-resume" "a draft saved (C-x C-s), changed and saved again, postponed, resumed (e) and sent" ("show" "reply" "insert" "address")
  (maildex-test-keys "M-x notmuch RET")
  (maildex-test-keys "m dave@example.com C-c C-f C-s Cake SPC recipe C-c C-b Flour, SPC eggs. C-x C-s")
  (let ((maildex-test-sent t))
    (maildex-test-program "count" "--exclude=false" "subject:cake")
    (maildex-test-program "search" "--output=tags" "subject:cake")
    ;; saving again keeps one copy: the earlier one is tagged deleted
    (maildex-test-keys "RET Sugar. C-x C-s")
    (maildex-test-program "count" "--exclude=false" "subject:cake")
    (maildex-test-program "count" "subject:cake")
    (maildex-test-program "search" "--output=tags" "--exclude=false" "subject:cake")
    (maildex-test-keys "C-c C-p")
    (maildex-test-keys "M-x notmuch RET s subject:cake RET")
    (maildex-test-screen)
    (maildex-test-keys "RET")
    (maildex-test-screen)
    ;; resuming asks no question when the message has the draft tags
    (maildex-test-keys "e")
    (maildex-test-screen "the resumed draft")
    (maildex-test-keys "M-> RET Butter. C-c C-c")
    (steps--sent 3)
    (maildex-test-program "count" "--exclude=false" "subject:cake")
    (maildex-test-program "search" "--output=tags" "subject:cake")))

(maildex-test-step "24-hello-at-the-end" "notmuch-hello at the end" ("show" "reply" "insert" "address")
  (maildex-test-keys "M-x notmuch RET")
  (maildex-test-screen))

;;; steps.el ends here
