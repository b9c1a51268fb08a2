;;; complete.el --- complete lines being typed with Eglot in `emacs --batch'  -*- lexical-binding: t; -*-

;; Run by test/clients/completion.test.ts as
;;   emacs --batch -l client-samples/emacs/pi-session.el -l test/clients/emacs/complete.el
;; with `pi-session-lsp' on PATH.  It opens PI_FILE (a copy: a line is added to it, never saved),
;; starts Eglot as M-x eglot does, and for each line text of the JSON list PI_CASES puts it on the
;; line after the last one and completes at its end as `completion-at-point' (C-M-i) does when the
;; user takes the first candidate: the candidates of the first completion function at point,
;; filtered by `completion-styles' and sorted as the function says, the first one inserted, then
;; the function's exit function run as on a finished completion (where Eglot applies the item's
;; textEdit).  Prints one JSON line, {"client", "results", "errors"}, and exits 0 without errors.
;; PI_STEP_TIMEOUT (seconds each wait may take, default 8) and PI_DEADLINE (seconds for the whole
;; run, after which it reports and exits, default 25) are minutes under the tests, which only a
;; hang reaches.

(require 'cl-lib)

(defvar complete--errors nil)
(defvar complete--results nil)
(defvar complete--done nil)

(defun complete--finish ()
  (unless complete--done
    (setq complete--done t)
    (princ (concat "\n" (json-serialize `((client . ,(format "emacs %s + eglot" emacs-version))
                                          (results . ,(vconcat (reverse complete--results)))
                                          (errors . ,(vconcat (reverse complete--errors)))))
                   "\n"))
    (kill-emacs (if complete--errors 1 0))))

(defun complete--env-number (name default)
  (let ((v (getenv name))) (if (and v (not (string-empty-p v))) (string-to-number v) default)))

(defvar complete--step-timeout (complete--env-number "PI_STEP_TIMEOUT" 8))

;; Eglot's own limits (30 s to connect, jsonrpc's 10 s a request) would fail a correct server on a
;; busy machine: they are the step's limit instead, which the tests set to minutes.
(setq eglot-connect-timeout complete--step-timeout)
(with-eval-after-load 'jsonrpc (setq jsonrpc-default-request-timeout complete--step-timeout))

(run-at-time (complete--env-number "PI_DEADLINE" 25) nil
             (lambda () (push "deadline: the run did not finish in time" complete--errors) (complete--finish)))

(defun complete--wait (what pred)
  (let ((limit (+ (float-time) complete--step-timeout)))
    (while (and (not (funcall pred)) (< (float-time) limit))
      (accept-process-output nil 0.02))
    (or (funcall pred) (error "no %s within %s s" what complete--step-timeout))))

(defun complete--first-candidate ()
  "Complete at point with the first candidate, as `completion-at-point' does."
  (let ((data (run-hook-wrapped 'completion-at-point-functions
                                (lambda (fn) (and (functionp fn) (funcall fn))))))
    (unless data (error "no completion function answered at point"))
    (pcase-let* ((`(,beg ,end ,table . ,props) data)
                 (beg (copy-marker beg))
                 (end (copy-marker end t))
                 (typed (buffer-substring-no-properties beg end))
                 (metadata (completion-metadata typed table nil))
                 (all (completion-all-completions typed table nil (length typed) metadata))
                 (last (last all)))
      (when (consp last) (setcdr last nil))
      (unless all (error "no candidate for %S" typed))
      (let* ((sort (or (completion-metadata-get metadata 'display-sort-function) #'identity))
             (sorted (funcall sort all))
             ;; The styles return the candidates' tails; the whole candidate is the base plus the tail.
             (choice (car sorted))
             (whole (car (member choice (all-completions "" table)))))
        (setq whole (or whole choice))
        (completion--replace beg end whole)
        (goto-char end)
        (let ((exit (plist-get props :exit-function)))
          (when exit (funcall exit whole 'finished)))))))

(condition-case err
    (let* ((buffer (find-file-noselect (getenv "PI_FILE"))))
      (switch-to-buffer buffer)
      (let ((this-command 'eglot)) (call-interactively #'eglot))
      (complete--wait "Eglot connection" (lambda () (bound-and-true-p eglot--managed-mode)))
      (goto-char (point-max))
      (unless (bolp) (insert "\n"))
      (let ((start (point)))
        (dolist (text (append (json-parse-string (getenv "PI_CASES")) nil))
          (delete-region start (point-max))
          (goto-char start)
          (insert text)
          (complete--first-candidate)
          (push (buffer-substring-no-properties start (line-end-position)) complete--results))))
  (error (push (error-message-string err) complete--errors)))
(complete--finish)
