//! The numpy side: one persistent `python3 numpy_worker.py` driven over a line protocol, so
//! numpy takes part in the same interleaved rounds as the Rust implementations.

use crate::Res;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

pub struct Numpy {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Numpy {
    /// Starts the worker (`$PYTHON` or `python3`).
    pub fn start() -> Res<Numpy> {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/numpy_worker.py");
        let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
        let mut child = Command::new(&python)
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {python} {script}: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        Ok(Numpy {
            child,
            stdin,
            stdout,
        })
    }

    /// Sends one command line and returns the reply line (an `ERR` reply is an error).
    pub fn call(&mut self, cmd: &str) -> Res<String> {
        writeln!(self.stdin, "{cmd}")?;
        self.stdin.flush()?;
        let mut line = String::new();
        if self.stdout.read_line(&mut line)? == 0 {
            return Err(format!("numpy worker exited during `{cmd}`").into());
        }
        let reply = line.trim_end().to_string();
        if reply.starts_with("ERR") {
            return Err(format!("numpy worker, `{cmd}`: {reply}").into());
        }
        Ok(reply)
    }

    /// A command whose reply must be `ok`.
    pub fn ok(&mut self, cmd: &str) -> Res<()> {
        match self.call(cmd)?.as_str() {
            "ok" => Ok(()),
            other => Err(format!("numpy worker, `{cmd}`: {other}").into()),
        }
    }

    /// A timed command: the reply is the seconds numpy measured around the operation.
    pub fn timed(&mut self, cmd: &str) -> Res<Duration> {
        let reply = self.call(cmd)?;
        let secs: f64 = reply
            .parse()
            .map_err(|_| format!("numpy worker, `{cmd}`: not seconds: {reply}"))?;
        Ok(Duration::from_secs_f64(secs))
    }

    /// A check command: the reply must be `ok SUM` with SUM equal to `expected_sum`.
    pub fn check_sum(&mut self, cmd: &str, expected_sum: f64) -> Res<()> {
        let reply = self.call(cmd)?;
        let sum = reply
            .strip_prefix("ok ")
            .and_then(|s| s.parse::<f64>().ok());
        if sum != Some(expected_sum) {
            return Err(
                format!("numpy check `{cmd}`: {reply} (expected ok {expected_sum})").into(),
            );
        }
        Ok(())
    }
}

impl Drop for Numpy {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}
