;;; drive.el --- drive Eglot in `emacs --batch' with the sample pi-session.el  -*- lexical-binding: t; -*-

;; Run by test/clients/emacs.test.ts as
;;   emacs --batch -l client-samples/emacs/pi-session.el -l test/clients/emacs/drive.el
;; with `pi-session-lsp' on PATH.  The sample is loaded first, as a user's init file would; this
;; file only plays the user: it opens a session, starts Eglot as M-x eglot does, and reports what
;; Emacs shows.  Environment:
;;   PI_FILE          the session file to open
;;   PI_POS           LINE:COL (0-based) of a reference, for hover (eldoc) and definition (M-.)
;;   PI_CONTEXT_LINE  0-based line whose entry `pi-session-show-context' is run on
;;   PI_FIX_FILE      a session (a copy: it is edited) on which C-c C-c (Fix all) is run
;;   PI_RENAME_FILE   a session (a copy) on which M-x eglot-rename is run, at PI_RENAME_POS
;;                    (LINE:COL, 0-based) with the new name PI_RENAME_NAME
;;   PI_STEP_TIMEOUT  seconds each wait may take (default 8)
;;   PI_DEADLINE      seconds for the whole run, after which it reports and exits (default 25)
;; Prints one JSON line on stdout (`princ'; Emacs' own messages go to stderr) and exits with
;; `kill-emacs': 0 when every step answered, 1 otherwise (see "errors").

(require 'cl-lib)
(require 'json)

(defvar drive--start (float-time))
(defvar drive--errors nil)
(defvar drive--result nil "Alist of what was seen, in reverse order.")
(defvar drive--ms nil "Alist of step name → milliseconds since start.")
(defvar drive--published 0 "publishDiagnostics notifications received.")
(defvar drive--done nil)

(defun drive--env-number (name default)
  (let ((v (getenv name))) (if (and v (not (string-empty-p v))) (string-to-number v) default)))

(defvar drive--step-timeout (drive--env-number "PI_STEP_TIMEOUT" 8))

;; Eglot's own limits (30 s to connect, jsonrpc's 10 s a request) would fail a correct server on a
;; busy machine: they are the step's limit instead, which the tests set to minutes.
(setq eglot-connect-timeout drive--step-timeout)
(with-eval-after-load 'jsonrpc (setq jsonrpc-default-request-timeout drive--step-timeout))

(defun drive--put (key value) (push (cons key value) drive--result))
(defun drive--mark (step) (push (cons step (round (* 1000 (- (float-time) drive--start)))) drive--ms))
(defun drive--error (fmt &rest args) (push (apply #'format fmt args) drive--errors))
(defun drive--bool (x) (if x t :false))

(defun drive--finish ()
  "Print the JSON line and leave Emacs (once)."
  (unless drive--done
    (setq drive--done t)
    (drive--mark 'total)
    (let ((out `((client . ,(format "emacs %s + eglot %s" emacs-version
                                    (drive--eglot-version)))
                 (ok . ,(drive--bool (null drive--errors)))
                 (errors . ,(vconcat (reverse drive--errors)))
                 (ms . ,(reverse drive--ms))
                 ,@(reverse drive--result))))
      (princ (concat "\n" (json-serialize out) "\n")))
    (kill-emacs (if drive--errors 1 0))))

(defun drive--eglot-version ()
  (let ((lib (locate-library "eglot")))
    (if (and lib (string-match "eglot-\\([0-9.]+\\)/" lib)) (match-string 1 lib) "built-in")))

(defmacro drive--step (name &rest body)
  "Run BODY as step NAME: an error is recorded, and the run goes on."
  (declare (indent 1))
  `(condition-case err
       (progn ,@body (drive--mark ',name))
     (error (drive--error "%s: %s" ',name (error-message-string err)))))

(defun drive--wait (what pred &optional timeout)
  "Process events until PRED is non-nil.
Signal an error naming WHAT after TIMEOUT seconds."
  (let ((limit (+ (float-time) (or timeout drive--step-timeout))))
    (while (and (not (funcall pred)) (< (float-time) limit))
      (accept-process-output nil 0.02))
    (or (funcall pred)
        (error "no %s within %ss" what (or timeout drive--step-timeout)))))

;; The whole run has a deadline of its own: report what was seen, then leave.
(run-at-time (drive--env-number "PI_DEADLINE" 25) nil
             (lambda () (drive--error "deadline: the run did not finish in time") (drive--finish)))

(defun drive--pos (line col)
  (goto-char (point-min)) (forward-line line) (forward-char col))

(defun drive--line-col (pos)
  (save-excursion (goto-char pos) (list (1- (line-number-at-pos)) (current-column))))

(defun drive--flymake ()
  "The Flymake diagnostics of the current buffer, in buffer order, as JSON objects."
  (vconcat
   (mapcar (lambda (d)
             (pcase-let ((`(,line ,col) (drive--line-col (flymake-diagnostic-beg d))))
               `((line . ,line) (character . ,col)
                 (type . ,(symbol-name (flymake-diagnostic-type d)))
                 (text . ,(substring-no-properties (flymake-diagnostic-text d))))))
           (sort (flymake-diagnostics) (lambda (a b) (< (flymake-diagnostic-beg a) (flymake-diagnostic-beg b)))))))

(defun drive--edit-copy (file action)
  "Visit FILE, start Eglot there as M-x eglot does (unless the folder's server
already manages it), run ACTION and wait until it changed the buffer.  Return
what the buffer then holds."
  (let ((buffer (find-file-noselect file)))
    (switch-to-buffer buffer)
    (unless (eglot-current-server)
      (let ((this-command 'eglot)) (call-interactively #'eglot)))
    (drive--wait (format "Eglot connection for %s" file) (lambda () (with-current-buffer buffer (bound-and-true-p eglot--managed-mode))))
    (let ((tick (buffer-chars-modified-tick)))
      (funcall action)
      (drive--wait (format "an edit of %s" file) (lambda () (/= tick (with-current-buffer buffer (buffer-chars-modified-tick))))))
    (with-current-buffer buffer
      `((text . ,(buffer-substring-no-properties (point-min) (point-max)))
        (modified . ,(drive--bool (buffer-modified-p)))))))

(defun drive--faded-count ()
  (cl-count-if (lambda (d) (string-match-p "\\[not-in-context\\]" (flymake-diagnostic-text d))) (flymake-diagnostics)))

(let* ((file (or (getenv "PI_FILE") (error "PI_FILE is not set")))
       (pos (mapcar #'string-to-number (split-string (or (getenv "PI_POS") "0:0") ":")))
       (context-line (drive--env-number "PI_CONTEXT_LINE" 0))
       buffer server)
  (condition-case err
      (progn
        ;; Count the server's publishDiagnostics as they reach Eglot.
        (with-eval-after-load 'eglot
          (cl-defmethod eglot-handle-notification :after
            (_server (_method (eql textDocument/publishDiagnostics)) &rest _)
            (cl-incf drive--published)))

        (drive--step open
          ;; C-x C-f: the mode comes from the sample's `auto-mode-alist' entry.
          (setq buffer (find-file-noselect file))
          (switch-to-buffer buffer)   ; eldoc's hover only answers for a buffer in a window
          (drive--put 'majorMode (symbol-name major-mode))
          ;; Unwrapped, and coloured: the face font-lock puts on the first key ("type").
          (drive--put 'truncateLines (drive--bool truncate-lines))
          (font-lock-ensure)
          (drive--put 'keyFace (format "%S" (get-text-property 2 'face)))
          (drive--put 'eglotEnsureHooked (drive--bool (memq 'eglot-ensure pi-session-mode-hook))))

        (drive--step eglot
          ;; M-x eglot (autoloads Eglot, which runs the sample's `with-eval-after-load').
          (let ((this-command 'eglot)) (call-interactively #'eglot))
          (drive--wait "Eglot connection" (lambda () (with-current-buffer buffer (bound-and-true-p eglot--managed-mode))))
          (setq server (with-current-buffer buffer (eglot-current-server)))
          (drive--put 'command (vconcat (process-command (jsonrpc--process server))))
          (drive--put 'languageId (eglot--language-id server))
          (drive--put 'serverInfo (or (eglot--server-info server) :null))
          (drive--put 'initializationOptions (eglot-initialization-options server)))
        ;; Without a server the other steps can only fail: report the cause alone.
        (unless server (drive--finish))

        (drive--step diagnostics
          ;; Flymake starts checks from command hooks and idle timers, which batch mode never
          ;; runs: start one by hand, as the first command after opening would.
          (with-current-buffer buffer
            (flymake-mode 1)
            (flymake-start)
            (drive--wait "publishDiagnostics" (lambda () (> drive--published 0)))
            (drive--wait "Flymake diagnostics" (lambda () (flymake-diagnostics)))
            (drive--put 'diagnostics (drive--flymake))))

        (drive--step hover
          (with-current-buffer buffer
            (drive--pos (nth 0 pos) (nth 1 pos))
            (let (hover)
              (eglot-hover-eldoc-function (lambda (info &rest _) (setq hover (or info ""))))
              (drive--wait "hover (eldoc) answer" (lambda () hover))
              (drive--put 'hover (substring-no-properties hover)))))

        (drive--step imenu
          ;; M-x imenu: Eglot groups the outline by symbol kind; each group's name, its entries,
          ;; and the names of the entries it nests others under (a branch, a cycle).
          (with-current-buffer buffer
            (let ((names (lambda (items) (vconcat (mapcar (lambda (item) (substring-no-properties (car item))) items)))))
              (drive--put 'imenu
                          (vconcat
                           (mapcar (lambda (group)
                                     `((group . ,(car group))
                                       (items . ,(funcall names (cl-remove-if #'imenu--subalist-p (cdr group))))
                                       (nesting . ,(funcall names (cl-remove-if-not #'imenu--subalist-p (cdr group))))))
                                   (cl-remove-if-not #'imenu--subalist-p (imenu--make-index-alist t))))))))

        (drive--step definition
          ;; M-. on the reference, which jumps to the entry it names.
          (set-buffer buffer)
          (drive--pos (nth 0 pos) (nth 1 pos))
          (let* ((key (key-binding (kbd "M-.")))
                 (this-command key))
            (drive--put 'metaDotCommand (symbol-name key))
            (call-interactively key))
          (pcase-let ((`(,line ,col) (drive--line-col (point))))
            (drive--put 'afterDefinition `((buffer . ,(buffer-name (current-buffer)))
                                           (line . ,line) (character . ,col)))))

        (drive--step context
          ;; C-c C-c on an entry line, then C-u C-c C-c (the active context), each from the
          ;; session buffer as a user would (the command selects the buffer it shows).
          (switch-to-buffer buffer)
          (drive--pos context-line 0)
          (drive--put 'ccCommand (symbol-name (key-binding (kbd "C-c C-c"))))
          (with-current-buffer (call-interactively (key-binding (kbd "C-c C-c")))
            (drive--put 'context `((buffer . ,(buffer-name))
                                   (readOnly . ,(drive--bool buffer-read-only))
                                   (markdown . ,(buffer-substring-no-properties (point-min) (point-max))))))
          (switch-to-buffer buffer)
          (with-current-buffer (let ((current-prefix-arg '(4))) ; C-u
                                 (call-interactively (key-binding (kbd "C-c C-c"))))
            (drive--put 'activeContext (buffer-substring-no-properties (point-min) (point-max))))
          (switch-to-buffer buffer))

        (drive--step settings
          ;; The sample turns fading on; turning it off as its comment says must remove the
          ;; faded (not-in-context) hints: proof that the server reads eglot-workspace-configuration.
          (with-current-buffer buffer
            (drive--put 'fadedBefore (drive--faded-count))
            (setq-default eglot-workspace-configuration
                          (plist-put (copy-sequence (default-value 'eglot-workspace-configuration))
                                     :piSession '(:maxSymbols 5000 :fadeInactive :json-false)))
            (let ((published drive--published))
              (eglot-signal-didChangeConfiguration server)
              (drive--wait "diagnostics without faded entries"
                           (lambda () (and (> drive--published published) (= 0 (drive--faded-count))))))
            (drive--put 'fadedAfter (drive--faded-count))
            (drive--put 'diagnosticsAfterSettings (length (flymake-diagnostics)))))

        (drive--step fixAll
          ;; C-c C-f in a session: Fix all, in the buffer.
          (let ((copy (getenv "PI_FIX_FILE")))
            (when (and copy (not (string-empty-p copy)))
              (drive--put 'fixAll
                          (drive--edit-copy copy (lambda ()
                                                   (let ((this-command (key-binding (kbd "C-c C-f"))))
                                                     (drive--put 'fixAllCommand (symbol-name this-command))
                                                     (call-interactively this-command))))))))

        (drive--step rename
          ;; M-x eglot-rename RET NEW-NAME RET, on an id.
          (let ((copy (getenv "PI_RENAME_FILE"))
                (at (mapcar #'string-to-number (split-string (or (getenv "PI_RENAME_POS") "0:0") ":"))))
            (when (and copy (not (string-empty-p copy)))
              (drive--put 'rename
                          (drive--edit-copy copy (lambda ()
                                                   (drive--pos (nth 0 at) (nth 1 at))
                                                   (eglot-rename (getenv "PI_RENAME_NAME"))))))))

        (drive--step shutdown
          ;; Eglot 1.9 kills the server right after `exit': its exit code says nothing.
          (eglot-shutdown server nil 3)
          (drive--put 'serverLiveAfterShutdown (drive--bool (process-live-p (jsonrpc--process server))))))
    (error (drive--error "unexpected: %s" (error-message-string err))))
  (drive--finish))

;;; drive.el ends here
