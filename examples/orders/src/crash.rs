//! Crash points for the crash experiment (`bench/crash`): with `--crash-file PATH`, a point
//! whose name is written in that file aborts the process there, once (the file is removed
//! first). Off unless the flag is given; `abort` is a kill: no destructor, no flush, no answer.

use std::path::PathBuf;
use std::sync::Arc;

#[derive(Clone, Default)]
pub struct Crash(Option<Arc<PathBuf>>);

impl Crash {
    pub fn armed_by(file: Option<PathBuf>) -> Self {
        Crash(file.map(Arc::new))
    }

    /// Aborts here if the crash file names this point.
    pub fn point(&self, name: &str) {
        let Some(file) = &self.0 else { return };
        if std::fs::read_to_string(file.as_ref()).is_ok_and(|armed| armed.trim() == name)
            && std::fs::remove_file(file.as_ref()).is_ok()
        {
            eprintln!("orders-service: crash point {name}");
            std::process::abort();
        }
    }
}
