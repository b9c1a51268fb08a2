//! A minimal Zed extension that starts pi-session-lsp for "Pi Session" files (*.jsonl).
//!
//! The server is not bundled: it is looked up as `pi-session-lsp` on the PATH of the project's
//! shell, unless `lsp.pi-session-lsp.binary.path` is set in Zed's settings. Its settings come from
//! `lsp.pi-session-lsp.settings` (answered to `workspace/configuration`) and
//! `lsp.pi-session-lsp.initialization_options` (sent at startup; the `settings` when unset).

use zed_extension_api::{self as zed, serde_json, settings::LspSettings, LanguageServerId, Result};

const SERVER: &str = "pi-session-lsp";

struct PiSessionExtension;

impl zed::Extension for PiSessionExtension {
    fn new() -> Self {
        PiSessionExtension
    }

    fn language_server_command(
        &mut self,
        language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<zed::Command> {
        let binary = LspSettings::for_worktree(language_server_id.as_ref(), worktree)
            .ok()
            .and_then(|settings| settings.binary);
        let configured_path = binary.as_ref().and_then(|b| b.path.clone());
        let args = binary
            .as_ref()
            .and_then(|b| b.arguments.clone())
            .unwrap_or_else(|| vec!["--stdio".to_string()]);
        let mut env = worktree.shell_env();
        if let Some(extra) = binary.and_then(|b| b.env) {
            env.extend(extra);
        }
        let command = match configured_path {
            Some(path) => path,
            None => worktree.which(SERVER).ok_or_else(|| {
                format!("{SERVER} is not on the PATH: install it (npm install -g . in a clone of pi-session-lsp) or set lsp.{SERVER}.binary.path")
            })?,
        };
        Ok(zed::Command { command, args, env })
    }

    fn language_server_initialization_options(
        &mut self,
        language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<Option<serde_json::Value>> {
        let settings =
            LspSettings::for_worktree(language_server_id.as_ref(), worktree).unwrap_or_default();
        Ok(settings.initialization_options.or(settings.settings))
    }

    fn language_server_workspace_configuration(
        &mut self,
        language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<Option<serde_json::Value>> {
        let settings =
            LspSettings::for_worktree(language_server_id.as_ref(), worktree).unwrap_or_default();
        Ok(settings.settings)
    }
}

zed::register_extension!(PiSessionExtension);
