//! Operands that are URLs (feature `remote`): `show`, `stats` and a selection read an `.npy`
//! and `.npz` members over HTTP (`scripts/range_server.py`) and from S3 (moto's server), and
//! print what numpy prints of the local file. A selection of a 100 GB array (a sparse file)
//! fetches only its header and the selected bytes.
#![cfg(feature = "remote")]

mod common;

use common::{fixtures, numpy, ok, out_dir};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A child process killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `scripts/range_server.py` serving `dir`, and its port.
fn http_server(dir: &std::path::Path) -> (Server, u16) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/range_server.py");
    let mut child = Command::new("python3")
        .arg(script)
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("cannot start scripts/range_server.py");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line.trim().parse().expect("the server prints its port");
    (Server(child), port)
}

#[test]
fn urls_over_http_show_what_numpy_prints_of_the_files() {
    let (_server, port) = http_server(fixtures());
    let url = |name: &str| format!("http://127.0.0.1:{port}/{name}");
    // A selection: only its runs are fetched.
    for (file, sel) in [
        ("big_2d.npy", "10:13, ::-7"),
        ("big_3d_f.npy", "::3, -1, 2:9:2"),
        ("rec.npy", "::-1"),
        ("ab.npz:b", "::2, 1:"),
        ("ab_z.npz:a", "-2:"),
    ] {
        let (path, member) = match file.split_once(':') {
            Some((f, m)) => (f, format!("[{m:?}]")),
            None => (file, String::new()),
        };
        let expr = format!("np.load(D + {path:?}){member}[{sel}]");
        let operand = format!("{}[{sel}]", url(file));
        assert_eq!(
            ok(&["show", &operand]),
            numpy(&format!("print({expr})")),
            "{operand}"
        );
    }
    // Whole arrays and members, streamed in chunks: what the local file gives.
    for file in [
        "big_2d.npy",
        "f4_be_f.npy",
        "ab.npz:b",
        "ab_z.npz:a",
        "U.npy",
    ] {
        let local = common::fx(file);
        assert_eq!(ok(&["show", &url(file)]), ok(&["show", &local]), "{file}");
        assert_eq!(
            ok(&["stats", "--json", &url(file)]).replace(&url(""), ""),
            ok(&["stats", "--json", &local]).replace(&format!("{}/", fixtures().display()), ""),
            "{file}"
        );
    }
    // An archive of several members names one; a missing object is an error that says so.
    let r = common::ndnpy(&["show", &url("ab.npz")]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("name one as"), "{}", r.stderr);
    let r = common::ndnpy(&["show", &url("no_such.npy")]);
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("no_such.npy"), "{}", r.stderr);
    // Commands that read whole local files refuse a URL as a usage error.
    for cmd in ["ls", "validate"] {
        let r = common::ndnpy(&[cmd, &url("ab.npz")]);
        assert_eq!(r.code, 2, "{cmd}: {}", r.stderr);
        assert!(r.stderr.contains("read local files"), "{cmd}: {}", r.stderr);
    }
    // diff and convert read a URL as one array.
    let r = common::ndnpy(&["diff", &url("ab.npz:b"), &common::fx("ab.npz:b")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn a_selection_of_a_100_gb_array_fetches_only_what_it_shows() {
    // 12.5e9 float64s: a sparse file whose data is zeros but for its last element.
    let dir = out_dir("remote-huge");
    common::py_in(
        &dir,
        "import numpy as np",
        r#"
n = 12_500_000_000
with open(d + 'huge.npy', 'wb') as f:
    np.lib.format.write_array_header_1_0(f, {'descr': '<f8', 'fortran_order': False, 'shape': (n,)})
    start = f.tell()
    f.seek(start + (n - 1) * 8)
    f.write(np.float64(2.5).tobytes())
"#,
    );
    let (_server, port) = http_server(&dir);
    let started = Instant::now();
    let out = ok(&["show", &format!("http://127.0.0.1:{port}/huge.npy[-3:]")]);
    assert_eq!(out.trim(), "[0.  0.  2.5]");
    // Not a timing assertion: a read of the whole file would not end within the test.
    assert!(started.elapsed() < Duration::from_secs(120));
    let _ = std::fs::remove_dir_all(&dir);
}

/// moto's S3 server on a free loopback port, with the bucket `arrays` created.
fn moto() -> (Server, u16) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let script = format!(
        "import os, threading, time\n\
         parent = os.getppid()\n\
         def watch():\n\
         \x20   while os.getppid() == parent:\n\
         \x20       time.sleep(0.5)\n\
         \x20   os._exit(0)\n\
         threading.Thread(target=watch, daemon=True).start()\n\
         from moto.server import main\n\
         main(['-H', '127.0.0.1', '-p', '{port}'])\n"
    );
    let server = Server(
        Command::new("python3")
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the remote tests need moto's S3 server: pip install 'moto[server]'"),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "moto did not start in 30 s");
        std::thread::sleep(Duration::from_millis(100));
    }
    put(port, "/arrays", &[]);
    (server, port)
}

/// An unsigned PUT (moto does not check signatures) of `body` at `path`.
fn put(port: u16, path: &str, body: &[u8]) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "PUT {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    )
    .unwrap();
    s.write_all(body).unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "PUT {path}: {reply}");
}

#[test]
fn urls_in_s3_take_their_endpoint_and_keys_from_the_environment() {
    let (_server, port) = moto();
    for file in ["big_2d.npy", "ab_z.npz"] {
        let bytes = std::fs::read(fixtures().join(file)).unwrap();
        put(port, &format!("/arrays/{file}"), &bytes);
    }
    let run = |operand: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_ndnpy"))
            .args(["show", operand])
            .env("AWS_ENDPOINT", format!("http://127.0.0.1:{port}"))
            .env("AWS_ALLOW_HTTP", "true")
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", "test")
            .env("AWS_REGION", "us-east-1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{operand}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(
        run("s3://arrays/big_2d.npy[10:13, ::-7]"),
        numpy("print(np.load(D + 'big_2d.npy')[10:13, ::-7])")
    );
    assert_eq!(
        run("s3://arrays/ab_z.npz:a[-2:]"),
        numpy("print(np.load(D + 'ab_z.npz')['a'][-2:])")
    );
}
