;;; emacs-speed.el --- notmuch.el's common workflows, timed, for bench/emacs-speed  -*- lexical-binding: t -*-
;; SPDX-License-Identifier: GPL-3.0-or-later

;; Loaded by bench/emacs-speed in `emacs --batch -Q', once per run and program: it loads Debian's
;; notmuch.el, points `notmuch-command' at the program, and times what a person waits for, from the
;; call to the buffer being complete (every process notmuch.el started has finished and its output is
;; drawn).  It prints one line per workflow: NAME TAB SECONDS TAB the processor seconds Emacs
;; itself used meanwhile (reading the program's output and drawing it) TAB those of the program's
;; processes TAB what the buffer showed (so that bench/emacs-speed can check that both programs did
;; the same work).  Processor time is what a loaded machine does not blur: wall time there is
;; mostly waiting for a processor.  It must not change what it
;; measures: no tag it adds maps to a Maildir flag, and bench/emacs-speed removes it between runs.
;;
;; Environment: EMACS_SPEED_NOTMUCH_EL (the directory of notmuch.el), EMACS_SPEED_COMMAND (the
;; program), EMACS_SPEED_WORD (a common word), EMACS_SPEED_THREAD_MID (a Message-ID of the
;; 61-message thread), EMACS_SPEED_TAG_QUERY (a query with at least 50 messages to tag one by one).

(require 'cl-lib)
(add-to-list 'load-path (getenv "EMACS_SPEED_NOTMUCH_EL"))
(require 'notmuch)
(setq notmuch-command (getenv "EMACS_SPEED_COMMAND"))
;; Without a display shr measures in characters, as on a terminal (as in test/emacs/maildex-test.el).
(setq shr-use-fonts nil)

(defun emacs-speed--wait ()
  "Wait until every process notmuch.el started has finished and its sentinel has run."
  (while (cl-some #'process-live-p (process-list))
    (accept-process-output nil 0.002))
  (accept-process-output nil 0))

(defun emacs-speed--children-cpu ()
  "Processor seconds of the processes Emacs started and has reaped, from /proc/self/stat
(cutime and cstime, the 14th and 15th fields after the command's name)."
  (with-temp-buffer
    (insert-file-contents "/proc/self/stat")
    (goto-char (point-max))
    (let ((fields (split-string (buffer-substring (1+ (search-backward ")")) (point-max)))))
      (/ (+ (string-to-number (nth 13 fields)) (string-to-number (nth 14 fields)))
         (float (string-to-number (getenv "EMACS_SPEED_CLK_TCK")))))))

(defmacro emacs-speed--time (name detail &rest body)
  "Run BODY, wait for its processes, and print NAME, the seconds taken, the processor
seconds Emacs itself used meanwhile (reading and drawing), those of the program's
processes, and DETAIL."
  (declare (indent 2))
  `(let ((start (float-time))
         (cpu (float-time (get-internal-run-time)))
         (children (emacs-speed--children-cpu)))
     ,@body
     (emacs-speed--wait)
     (let ((seconds (- (float-time) start))
           (emacs (- (float-time (get-internal-run-time)) cpu))
           (program (- (emacs-speed--children-cpu) children)))
       (princ (format "%s\t%.4f\t%.4f\t%.4f\t%s\n" ,name seconds emacs program ,detail)))))

(defun emacs-speed--lines ()
  "The number of lines of the current buffer."
  (count-lines (point-min) (point-max)))

(defun emacs-speed-run ()
  "Time the workflows, one line each on standard output."
  (let ((word (getenv "EMACS_SPEED_WORD"))
        (mid (getenv "EMACS_SPEED_THREAD_MID"))
        (tag-query (getenv "EMACS_SPEED_TAG_QUERY")))
    ;; notmuch-hello: saved-search counts (count --batch), all tags, the message total
    (emacs-speed--time "hello" (format "%d lines" (emacs-speed--lines))
      (notmuch-hello))
    ;; a search of a common word, oldest first as notmuch.el's default, until the last thread is drawn
    (emacs-speed--time "search" (format "%d threads"
                                        (with-current-buffer (format "*notmuch-search-%s*" word)
                                          (1- (emacs-speed--lines))))
      (notmuch-search word t))
    ;; the 61-message thread, as RET on its line shows it (the thread id found first, untimed)
    (let ((thread (car (process-lines notmuch-command "search" "--output=threads"
                                      (concat "id:" mid)))))
      (emacs-speed--time "show" (format "%d messages"
                                        (length (notmuch-show-get-message-ids-for-open-messages)))
        (notmuch-show thread)))
    ;; tagging 50 messages one by one from the unthreaded view (+ on a line, then the next line);
    ;; the view itself is loaded untimed
    (notmuch-unthreaded tag-query)
    (emacs-speed--wait)
    (set-buffer (window-buffer (selected-window)))
    (goto-char (point-min))
    (emacs-speed--time "tag50" (format "%d lines" (1- (line-number-at-pos)))
      (dotimes (_ 50)
        (notmuch-tree-tag '("+emacsspeed"))
        (forward-line 1)))))

;;; emacs-speed.el ends here
