;;; maildex-test.el --- driving notmuch.el as a person would, for test/T500-emacs.sh  -*- lexical-binding: t -*-
;; SPDX-License-Identifier: GPL-3.0-or-later

;; The harness of T500-emacs: it loads the real notmuch.el, runs the steps that steps.el defines one
;; after another, and writes what each step saw into a file of its own, which the shell script
;; compares with test/expected/emacs/.  A step acts only through keys (`maildex-test-keys', run as a
;; keyboard macro, so that minibuffer answers are typed too) and reads only what is on the screen
;; (`maildex-test-screen') or what the program under test answers on its command line.  It must not
;; call notmuch.el's functions directly, nor know which program it is driving: the same expected
;; text holds for notmuch and maildex.
;;
;; Environment (set by T500-emacs.sh):
;;   MAILDEX_EMACS_NOTMUCH_EL  the directory of notmuch.el (Debian's elpa-notmuch)
;;   MAILDEX_EMACS_COMMAND     the value of `notmuch-command': the program behind a wrapper that
;;                             logs each argv (T500-emacs.sh checks which entry points were reached)
;;   MAILDEX_EMACS_PROGRAM     the program under test itself, for the steps' own checks
;;   MAILDEX_EMACS_MISSING     the commands the program does not have, separated by spaces
;;   MAILDEX_EMACS_OUT         where each step's NAME.out goes, and `results' (one line per step)
;;   MAILDEX_EMACS_MAIL        the mail root, shown as MAIL in output
;;   MAILDEX_EMACS_CORPUS      test/corpora/emacs (the attachment's bytes, mail that arrives later)
;;   MAILDEX_EMACS_SENDMAIL    the mock sendmail program

(require 'cl-lib)
(require 'subr-x)

(add-to-list 'load-path (getenv "MAILDEX_EMACS_NOTMUCH_EL"))
(require 'notmuch)

(setq notmuch-command (getenv "MAILDEX_EMACS_COMMAND"))
(defvar maildex-test-program-file (getenv "MAILDEX_EMACS_PROGRAM")
  "The program under test itself, which `notmuch-command' runs through a wrapper that logs
every argv: the steps' own checks run it directly, so that only notmuch.el's calls are logged.")
;; Mail leaves through the mock, as it would through a local sendmail.
(setq message-send-mail-function #'message-send-mail-with-sendmail
      send-mail-function #'message-send-mail-with-sendmail
      sendmail-program (getenv "MAILDEX_EMACS_SENDMAIL"))
;; Who the person is, as an init file says it (else the envelope sender names this machine).
(setq user-full-name "Maildex Tester"
      user-mail-address "tester@example.org")
;; Nothing of the test's private HOME may decide what it sees: no auto-save files, no backups.
(setq auto-save-default nil
      make-backup-files nil
      message-auto-save-directory nil)
;; Without a display, shr measures words in pixels it does not have and breaks every line after
;; one word; it measures in characters, as on a terminal, when it is told not to use fonts.
(setq shr-use-fonts nil)

(defvar maildex-test-out (getenv "MAILDEX_EMACS_OUT"))
(defvar maildex-test-mail (directory-file-name (getenv "MAILDEX_EMACS_MAIL")))
(defvar maildex-test-corpus (getenv "MAILDEX_EMACS_CORPUS"))
(defvar maildex-test-missing (split-string (or (getenv "MAILDEX_EMACS_MISSING") "")))
(defvar maildex-test-timeout 30
  "Seconds a step may wait for notmuch.el's processes before it fails.")

(defvar maildex-test-steps nil
  "The steps, in the order they run: (NAME TITLE NEEDS FUNCTION).")
(defvar maildex-test--output nil
  "What the running step has printed, newest first.")

(defmacro maildex-test-step (name title needs &rest body)
  "Define the step NAME, titled TITLE, which needs the commands NEEDS and runs BODY.
A step whose program lacks one of NEEDS is skipped, and so must be every later step
that depends on what it would have changed: list the commands of those too."
  (declare (indent 3))
  `(setq maildex-test-steps
         (append maildex-test-steps
                 (list (list ,name ,title ',needs (lambda () ,@body))))))

;;; What a person sees

(defun maildex-test--face-mark (pos)
  "How the face at POS is written out, when it says something that text does not:
notmuch.el strikes a removed tag through and underlines an added one until the buffer
is refreshed, and greys the authors of a thread who wrote none of its matches."
  (let ((face nil))
    ;; the text's own faces and those of overlays (hl-line covers the line at point)
    (dolist (f (cons (get-text-property pos 'face)
                     (mapcar (lambda (o) (overlay-get o 'face)) (overlays-at pos))))
      (setq face (append (if (listp f) f (list f)) face)))
    (cond ((memq 'notmuch-tag-deleted face) '("[-" . "-]"))
          ((memq 'notmuch-tag-added face) '("{+" . "+}"))
          ((memq 'notmuch-search-non-matching-authors face) '("(~" . "~)")))))

(defun maildex-test--visible (start end)
  "The text between START and END as it is displayed: without invisible text, with one
\"...\" where invisible text shows an ellipsis, removed tags as [-tag-], added ones as
{+tag+}, authors without a match as (~name~), and without trailing blanks."
  (let ((parts nil) (ellipsis nil) (mark nil))
    (while (< start end)
      (let ((next (next-char-property-change start end))
            (invisible (invisible-p start)))
        (cond ((not invisible)
               (let ((here (maildex-test--face-mark start)))
                 (unless (equal here mark)
                   (when mark (push (cdr mark) parts))
                   (when here (push (car here) parts))
                   (setq mark here)))
               (push (buffer-substring-no-properties start next) parts)
               (setq ellipsis nil))
              ((and (not (eq invisible t)) (not ellipsis))
               (push "..." parts)
               (setq ellipsis t)))
        (setq start next)))
    (when mark (push (cdr mark) parts))
    (let ((text (apply #'concat (nreverse parts))))
      ;; marks go around words, not the blanks that pad a column
      (dolist (rule '(("\\(\\[-\\|{\\+\\|(~\\)\\( +\\)" . "\\2\\1")
                      ("\\( +\\)\\(-]\\|\\+}\\|~)\\)" . "\\2\\1")
                      ("\\[--]\\|{\\+\\+}\\|(~~)" . "")
                      ("[ \t]+$" . "")))
        (setq text (replace-regexp-in-string (car rule) (cdr rule) text)))
      text)))

(defvar maildex-test-sent nil
  "Non-nil while what is printed shows mail sent during the run: its Date, Message-ID
and file names are then new on every run.")

(defun maildex-test-sanitize (text)
  "TEXT with what differs from run to run or program to program replaced: the mail root,
thread ids, the relative dates of mail sent during the run, and while `maildex-test-sent'
the Date, Message-ID and unique file name part of that mail."
  (dolist (rule `((,(regexp-quote maildex-test-mail) . "MAIL")
                  ;; each program numbers threads its own way; notmuch.el never shows the ids
                  ("thread:[0-9a-f]\\{16\\}" . "thread:XXX")
                  ;; notmuch's relative dates of the last day, padded in columns
                  (" *\\([0-9]+ \\(sec\\|min\\)s?\\. ago\\|Today [0-9:]+\\|the future\\)" . " RECENT")
                  ,@(and maildex-test-sent
                         '(("^\\(Message-I[Dd]: \\)<[^>]*>" . "\\1<GENERATED>")
                           ("^\\(Date: \\).*" . "\\1DATE")
                           ("\\(/\\(new\\|cur\\)/\\)[^/\n:]+" . "\\1UNIQUE")))))
    (setq text (replace-regexp-in-string (car rule) (cdr rule) text t)))
  text)

(defun maildex-test-screen (&optional label buffer)
  "Print what BUFFER (default: the selected window's) shows, under LABEL."
  (with-current-buffer (or buffer (window-buffer (selected-window)))
    (maildex-test-print "--- %s ---" (or label (buffer-name)))
    (maildex-test-print "%s" (maildex-test-sanitize
                              (maildex-test--visible (point-min) (point-max))))))

(defun maildex-test-line ()
  "Print the line at point of the selected window, as it is displayed."
  (with-current-buffer (window-buffer (selected-window))
    (maildex-test-print "line: %s" (maildex-test--visible (line-beginning-position)
                                                          (line-end-position)))))

(defun maildex-test-print (format &rest args)
  "Print a line of the running step's output."
  (let ((text (apply #'format format args)))
    (push (if (string-suffix-p "\n" text) text (concat text "\n")) maildex-test--output)))

;;; Acting as a person

(defun maildex-test-glance ()
  "Print the prompt waiting in the minibuffer, what is typed there and the list of
completions shown under it: a person's glance at the screen in the middle of typing.
Bound to <f12>, so that the keys of a step can take it while a prompt waits."
  (interactive)
  (maildex-test-print "minibuffer: %s%s" (or (minibuffer-prompt) "")
                      (if (minibufferp) (minibuffer-contents-no-properties) ""))
  (let ((completions (get-buffer "*Completions*")))
    (if (and completions (get-buffer-window completions))
        (maildex-test-screen nil completions)
      (maildex-test-print "(no completions shown)"))))
(global-set-key (kbd "<f12>") #'maildex-test-glance)

(defun maildex-test-wait ()
  "Wait until every process notmuch.el started has finished and its output is handled."
  (let ((deadline (+ (float-time) maildex-test-timeout)))
    (while (cl-some #'process-live-p (process-list))
      (when (> (float-time) deadline)
        (error "still running after %d seconds: %s" maildex-test-timeout
               (mapconcat (lambda (p) (string-join (process-command p) " "))
                          (cl-remove-if-not #'process-live-p (process-list)) "; ")))
      (accept-process-output nil 0.05))
    ;; sentinels run after the process is gone: give them their turn
    (accept-process-output nil 0.01)))

(defun maildex-test-keys (keys)
  "Type KEYS (`kbd' syntax) into the selected window, minibuffer answers included,
and wait for what they started."
  (execute-kbd-macro (kbd keys))
  (maildex-test-wait))

(defun maildex-test-goto (buffer text)
  "Select BUFFER and put point at the start of the first line containing TEXT,
as a person moves the cursor there."
  (switch-to-buffer buffer)
  (goto-char (point-min))
  (unless (search-forward text nil t)
    (error "%s does not show %S" (buffer-name) text))
  (goto-char (match-beginning 0)))

(defun maildex-test-program (&rest args)
  "Print the output of the program under test run with ARGS, as a person checks in a shell."
  (with-temp-buffer
    (let* ((default-directory (expand-file-name "~/"))
           (status (apply #'call-process maildex-test-program-file nil t nil args)))
      ;; the same line for every program, so that one expected text holds for all
      (maildex-test-print "$ <program> %s"
                          (mapconcat (lambda (a) (if (string-match-p "[ *'\"]" a) (format "'%s'" a) a))
                                     args " "))
      (maildex-test-print "%s" (maildex-test-sanitize
                                (string-trim-right (buffer-string))))
      (unless (eql status 0)
        (maildex-test-print "exit status %s" status)))))

;; A question no typed key answers would read the test's standard input: without a display Emacs
;; asks there, and y-or-n-p asks again and again at its end. Such a question fails the step instead,
;; naming it.
(defun maildex-test--answered (ask &rest args)
  "Ask with ASK and ARGS when keys are left to answer, else signal which question was asked."
  (if (and executing-kbd-macro (< executing-kbd-macro-index (length executing-kbd-macro)))
      (apply ask args)
    (error "asked %S, which no typed key answers" (car args))))
(dolist (ask '(y-or-n-p yes-or-no-p read-char-choice read-from-minibuffer completing-read
                        read-key read-char))
  (advice-add ask :around #'maildex-test--answered))

;;; Running the steps

(defun maildex-test--errors ()
  "What notmuch.el put in *Notmuch errors* since the last call, emptied."
  (let ((buffer (get-buffer "*Notmuch errors*")))
    (when (and buffer (> (buffer-size buffer) 0))
      (with-current-buffer buffer
        (prog1 (buffer-string)
          (let ((inhibit-read-only t))
            (erase-buffer)))))))

;; An error in a process filter or sentinel (notmuch.el reading output it cannot use) is said in
;; the echo area of an interactive Emacs, which goes on; in batch mode Emacs 28 exits instead, which
;; would end every later step too. Every filter and sentinel notmuch.el sets is guarded so that it
;; says the error as the echo area does, and the step that caused it reports it.
(defun maildex-test--guard (kind function)
  "FUNCTION, a process filter or sentinel (KIND), whose errors are said, not signalled."
  (if (not (functionp function))
      function
    (lambda (&rest args)
      (condition-case err
          (apply function args)
        (error (message "error in process %s: %s" kind (error-message-string err)))))))
(advice-add 'set-process-filter :filter-args
            (lambda (args) (list (car args) (maildex-test--guard "filter" (cadr args)))))
(advice-add 'set-process-sentinel :filter-args
            (lambda (args) (list (car args) (maildex-test--guard "sentinel" (cadr args)))))

(defun maildex-test--process-errors (since)
  "The errors of process filters and sentinels said in *Messages* after position SINCE."
  (with-current-buffer (messages-buffer)
    (let ((errors nil))
      (save-excursion
        (goto-char (min since (point-max)))
        (while (re-search-forward "^error in process \\(filter\\|sentinel\\): .*" nil t)
          (push (match-string-no-properties 0) errors)))
      (nreverse errors))))

(defun maildex-test--run-step (name title function)
  "Run FUNCTION and write its output, errors included, to NAME.out."
  (setq maildex-test--output nil)
  (maildex-test-print "# %s" title)
  (let ((messages (with-current-buffer (messages-buffer) (point-max))))
    (condition-case err
        (funcall function)
      (error (maildex-test-print "error: %s" (error-message-string err))))
    (condition-case err
        (maildex-test-wait)
      (error (maildex-test-print "error: %s" (error-message-string err))))
    (let ((errors (maildex-test--errors)))
      (when errors
        (maildex-test-print "*Notmuch errors* says:\n%s" errors)))
    (dolist (said (maildex-test--process-errors messages))
      (maildex-test-print "echo area: %s" said)))
  (with-temp-file (expand-file-name (concat name ".out") maildex-test-out)
    (set-buffer-file-coding-system 'utf-8-unix)
    (apply #'insert (reverse maildex-test--output))))

(defun maildex-test-run ()
  "Run every step, or record why it is skipped, in the file `results'."
  (let ((results (expand-file-name "results" maildex-test-out)))
    (dolist (step maildex-test-steps)
      (pcase-let* ((`(,name ,title ,needs ,function) step)
                   (missing (cl-remove-if-not (lambda (c) (member c maildex-test-missing)) needs)))
        (if missing
            (write-region (format "skip\t%s\t%s\n" name (string-join missing " "))
                          nil results t 'silent)
          (let ((start (float-time)))
            (maildex-test--run-step name title function)
            (write-region (format "run\t%s\t%.1f s\n" name (- (float-time) start))
                          nil results t 'silent)))))))

(provide 'maildex-test)
;;; maildex-test.el ends here
