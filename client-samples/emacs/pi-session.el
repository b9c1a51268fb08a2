;;; pi-session.el --- Pi session files with pi-session-lsp and Eglot  -*- lexical-binding: t; -*-

;; Works with Emacs 29+ (Eglot built in) and with Emacs 28 plus the `eglot'
;; package (GNU ELPA, or Debian's `elpa-eglot').  See README.md next to this file.

;;; Commentary:

;; A major mode for Pi coding-agent session files (*.jsonl) that starts the
;; pi-session-lsp language server through Eglot:
;;
;;   - Flymake shows every fault Pi would trip on (M-x flymake-show-buffer-diagnostics);
;;   - ElDoc shows the hover text (what an entry, id or reference means to Pi);
;;   - M-. on a parentId, targetId, fromId, ... jumps to the entry it names (M-, back);
;;   - C-c C-c (`pi-session-show-context') shows the context the model would see
;;     when Pi resumes from the entry on the current line (with C-u: the active one);
;;   - C-c C-f (`pi-session-fix-all') applies every safe fix to the buffer;
;;   - completion with C-M-i, quick fixes with M-x eglot-code-actions, rename of an
;;     id with M-x eglot-rename: Eglot changes the buffer, C-x C-s saves it.
;;
;; Install: put this file on your `load-path' and add (require 'pi-session) to
;; your init file.  `pi-session-lsp' must be on PATH (`npm link' in a clone of
;; pi-session-lsp), or edit the command in `eglot-server-programs' below.

;;; Code:

(require 'js)

;; Emacs 29+ has `js-json-mode'; Emacs 28 falls back to `js-mode'.
(defalias 'pi-session--parent-mode
  (if (fboundp 'js-json-mode) #'js-json-mode #'js-mode))

(defvar pi-session-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'pi-session-show-context)
    (define-key map (kbd "C-c C-f") #'pi-session-fix-all)
    ;; Emacs 28's js-mode binds M-. to `js-find-symbol', which knows nothing of
    ;; sessions: give it back to xref, that is, to Eglot.
    (define-key map (kbd "M-.") #'xref-find-definitions)
    map)
  "Keymap for `pi-session-mode'.")

;;;###autoload
(define-derived-mode pi-session-mode pi-session--parent-mode "Pi-Session"
  "Major mode for Pi session files, checked by pi-session-lsp through Eglot.
\\{pi-session-mode-map}"
  ;; Session lines are long: one entry per screen line, not wrapped.
  (setq-local truncate-lines t))

;; Every *.jsonl file.  To use the mode only for Pi's own session folder, use
;; this instead (the regexp is matched against the whole file name):
;;   (add-to-list 'auto-mode-alist '("/\\.pi/agent/sessions/.*\\.jsonl\\'" . pi-session-mode))
;;;###autoload
(add-to-list 'auto-mode-alist '("\\.jsonl\\'" . pi-session-mode))

;; Start the server when a session file is opened (M-x eglot does it by hand).
;; The autoloads are for Emacs 28 started without its packages (emacs -q).
(autoload 'eglot "eglot" nil t)
(autoload 'eglot-ensure "eglot")
;;;###autoload
(add-hook 'pi-session-mode-hook #'eglot-ensure)

(defvar eglot-server-programs)
(with-eval-after-load 'eglot
  ;; Settings (the table in pi-session-lsp's README), answered when the server
  ;; asks for the "piSession" section (workspace/configuration).  Write false as
  ;; :json-false, not nil.  After changing them in a running Emacs, run
  ;; M-x eglot-signal-didChangeConfiguration.
  (unless (functionp (default-value 'eglot-workspace-configuration))
    (setq-default eglot-workspace-configuration
                  (plist-put (copy-sequence (default-value 'eglot-workspace-configuration))
                             :piSession '(:maxSymbols 2000 :fadeInactive t))))
  ;; `add-to-list' puts the entry first: it must win over Eglot's own entries
  ;; for `js-mode' / `js-json-mode', which this mode derives from.
  (add-to-list 'eglot-server-programs
               `((pi-session-mode :language-id "jsonl")
                 "pi-session-lsp" "--stdio"
                 ;; The same settings at startup, before the server asks for them.
                 :initializationOptions
                 ,(lambda (_server)
                    (list :piSession
                          (plist-get (default-value 'eglot-workspace-configuration) :piSession))))))

(declare-function eglot-current-server "eglot")
(declare-function eglot--TextDocumentIdentifier "eglot")
(declare-function jsonrpc-request "jsonrpc")

(defun pi-session--entry-id-at-line ()
  "The id of the entry on the current line, or nil (header, no id, not JSON)."
  (let ((line (buffer-substring-no-properties (line-beginning-position) (line-end-position))))
    (condition-case nil
        (let ((entry (json-parse-string line :object-type 'alist)))
          (and (listp entry)
               (not (equal (alist-get 'type entry) "session"))
               (stringp (alist-get 'id entry))
               (alist-get 'id entry)))
      (error nil))))

(defun pi-session-build-context (&optional leaf-id)
  "Ask the server for the context built from LEAF-ID (nil: the active one).
Sends `piSession/buildContext' with format markdown and returns the answer,
a plist (:stats :markdown, and :error when Pi cannot build it)."
  (require 'eglot)
  (let ((server (or (eglot-current-server)
                    (user-error "No pi-session-lsp server here: M-x eglot first"))))
    (jsonrpc-request server :piSession/buildContext
                     `(,@(eglot--TextDocumentIdentifier)
                       ,@(and leaf-id (list :leafId leaf-id))
                       :format "markdown"
                       ;; Only the Markdown is shown: leave the JSON context out.
                       :context :json-false)
                     ;; Deferred: Eglot first sends the edits not yet sent.
                     :deferred 'piSession/buildContext)))

(defun pi-session-show-context (&optional active)
  "Show the context Pi builds when it resumes from the entry on this line.
On the header, or with a prefix argument ACTIVE, show the active context
(from the file's last entry, as Pi resumes the session).  The Markdown
answer of the server is shown in a read-only buffer, which is returned."
  (interactive "P")
  (let* ((id (and (not active) (pi-session--entry-id-at-line)))
         (answer (pi-session-build-context id))
         (markdown (or (plist-get answer :markdown) "(no answer)"))
         (buffer (get-buffer-create (format "*pi-session context: %s*" (buffer-name)))))
    (when (and (not active) (not id) (/= (line-number-at-pos) 1))
      (message "No entry id on this line: showing the active context"))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert markdown)
        (goto-char (point-min)))
      (if (fboundp 'gfm-view-mode) (gfm-view-mode) (special-mode))
      (setq buffer-read-only t))
    (pop-to-buffer buffer)
    buffer))

(declare-function eglot-code-actions "eglot")

(defun pi-session-fix-all ()
  "Apply every safe fix of pi-session-lsp to the buffer (its Fix all action).
The buffer is changed, not saved: \\[save-buffer] saves it."
  (interactive)
  (require 'eglot)
  ;; Eglot 1.9 keeps only the actions whose kind equals the kind asked for:
  ;; ask for the server's own kind, not the generic "source.fixAll".
  (eglot-code-actions (point-min) (point-max) "source.fixAll.piSession" t))

(provide 'pi-session)
;;; pi-session.el ends here
