//! Why a command failed, the message that names the file and says what to do, and the exit
//! status that goes with it.

use ndnpy::ErrorKind;
use std::fmt;
use std::path::Path;

/// The command ran and found nothing wrong (no differences; every file valid).
pub const EXIT_OK: i32 = 0;
/// `diff` found differences; `validate` found an invalid file.
pub const EXIT_FOUND: i32 = 1;
/// The command line is wrong (unknown command or option, missing operand, bad value).
pub const EXIT_USAGE: i32 = 2;
/// A file could not be opened, read or written (missing, permissions, disk full).
pub const EXIT_IO: i32 = 3;
/// A file is not a valid `.npy`/`.npz` file (bad header, truncated, corrupt archive).
pub const EXIT_BAD_FILE: i32 = 4;
/// The file is valid but the command cannot do what was asked with it (pickled objects, a
/// dtype it cannot convert, a member that is not an array, a limit exceeded).
pub const EXIT_UNSUPPORTED: i32 = 5;

/// A failure: the message and the exit status.
#[derive(Debug)]
pub struct Fail {
    /// The exit status.
    pub code: i32,
    /// The message, naming the file.
    pub message: String,
}

/// The result of a command step.
pub type Res<T> = Result<T, Fail>;

impl Fail {
    /// A command-line mistake.
    pub fn usage(message: impl Into<String>) -> Fail {
        Fail {
            code: EXIT_USAGE,
            message: message.into(),
        }
    }

    /// An I/O failure on `path` while doing `what`.
    pub fn io(path: &Path, what: &str, e: std::io::Error) -> Fail {
        Fail::io_named(&path.display().to_string(), what, e)
    }

    /// An I/O failure on the file shown as `name`.
    pub fn io_named(name: &str, what: &str, e: std::io::Error) -> Fail {
        let hint = match e.kind() {
            std::io::ErrorKind::NotFound => ": check the path",
            std::io::ErrorKind::PermissionDenied => ": check the file's permissions",
            _ => "",
        };
        Fail {
            code: EXIT_IO,
            message: format!("{name}: cannot {what}: {e}{hint}"),
        }
    }

    /// A file that is not what it should be.
    pub fn bad(path: &Path, why: &str) -> Fail {
        Fail::bad_named(&path.display().to_string(), why)
    }

    /// A file (shown as `name`) that is not what it should be.
    pub fn bad_named(name: &str, why: impl fmt::Display) -> Fail {
        Fail {
            code: EXIT_BAD_FILE,
            message: format!("{name}: {why}"),
        }
    }

    /// Something the command cannot do with a valid file.
    pub fn unsupported(name: &str, why: impl fmt::Display) -> Fail {
        Fail {
            code: EXIT_UNSUPPORTED,
            message: format!("{name}: {why}"),
        }
    }

    /// A library error on the file shown as `name`, with its exit status by who is at fault.
    pub fn lib(name: &str, e: ndnpy::Error) -> Fail {
        let kind = e.kind();
        let (code, hint) = if kind == ErrorKind::Io || kind == ErrorKind::OutOfMemory {
            (EXIT_IO, "")
        } else if kind.is_format() || kind == ErrorKind::NotNpy {
            (EXIT_BAD_FILE, "; `ndnpy validate` checks the whole file")
        } else if kind == ErrorKind::MissingMember {
            (EXIT_USAGE, "; `ndnpy ls` lists the members")
        } else {
            (EXIT_UNSUPPORTED, "")
        };
        let text = e.to_string();
        // The library names the file or member itself in some messages.
        let message = if text.contains(name) {
            format!("{text}{hint}")
        } else {
            format!("{name}: {text}{hint}")
        };
        Fail { code, message }
    }
}

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
