//! The `remote` case: the 256 MiB `.npy` of `read_c`, and the same array as a stored `.npz`
//! member, read over HTTP from a server on loopback (`scripts/range_server.py`, a plain HTTP
//! server with Range support; object_store's HTTP store), against the same files read from
//! the local path, in the same run.

use crate::cases::{base, base_sum, path_str, verify, Cleanup, NDNPY, NUMPY};
use crate::doors::ratio_goals;
use crate::numpy::Numpy;
use crate::{Config, Imp, Report, Res};
use ndarray::Array2;
use ndnpy::{remote::RemoteFile, remote::RemoteOptions, NpyReader, NpzReader, ReadNpyExt};
use object_store::ObjectStore;
use std::cell::RefCell;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

const MEMBER: &str = "ndnpy .npz member";
const REMOTE_BLOCKING: &str = "remote .npy, NpyReader<RemoteFile>";
const REMOTE_READ_NPY: &str = "remote .npy, Array2::read_npy(RemoteFile)";
const REMOTE_ASYNC: &str = "remote .npy from async code (spawn_blocking)";
const REMOTE_MEMBER_BLOCKING: &str = "remote .npz member, NpzReader<RemoteFile>";
const FLOOR: &str = "floor: one HTTP GET on a TcpStream into a fresh buffer";
const FLOOR_PARALLEL: &str = "floor: 8 ranged GETs at once, on 8 TcpStreams, into a fresh buffer";

/// The range server, serving `dir`; killed when dropped.
pub(crate) struct Server {
    child: Child,
    pub(crate) port: u16,
}

impl Server {
    pub(crate) fn start(dir: &std::path::Path) -> Res<Server> {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/range_server.py");
        let mut child = Command::new("python3")
            .arg(script)
            .arg(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()?;
        let mut line = String::new();
        BufReader::new(child.stdout.take().ok_or("no stdout")?).read_line(&mut line)?;
        let port = line.trim().parse()?;
        Ok(Server { child, port })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The whole response to `GET /name` on a new connection: headers and the body's `len` bytes.
fn raw_get(port: u16, name: &str, len: u64) -> Res<Vec<u8>> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port))?;
    write!(
        s,
        "GET /{name} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )?;
    let mut all = Vec::with_capacity(len as usize + 4096);
    s.read_to_end(&mut all)?;
    let head = all
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no end of headers")?;
    all.drain(..head + 4);
    Ok(all)
}

/// `GET /name` of the bytes `from..from + slot.len()` on a new connection, the body read
/// straight into `slot`.
pub(crate) fn raw_range_into(port: u16, name: &str, from: u64, slot: &mut [u8]) -> Res<()> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port))?;
    let last = from + slot.len() as u64 - 1;
    write!(
        s,
        "GET /{name} HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes={from}-{last}\r\n\
         Connection: close\r\n\r\n"
    )?;
    // The headers, read a little at a time; what follows them is the body's start.
    let mut head = Vec::new();
    let mut chunk = [0u8; 1024];
    let body_start = loop {
        let n = s.read(&mut chunk)?;
        if n == 0 {
            return Err("the connection closed in the headers".into());
        }
        head.extend_from_slice(&chunk[..n]);
        if let Some(p) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
    };
    let early = &head[body_start..];
    slot[..early.len()].copy_from_slice(early);
    s.read_exact(&mut slot[early.len()..])?;
    Ok(())
}

pub fn remote_case(cfg: &Config, np: &mut Numpy) -> Res<Report> {
    let (rows, cols) = cfg.shape2();
    let path = cfg.dir.join("remote.npy");
    let npz = cfg.dir.join("remote.npz");
    let _cleanup = Cleanup(vec![path.clone(), npz.clone()]);
    let p = path_str(&path)?;
    np.ok(&format!("gen {p} c {rows} {cols}"))?;
    np.ok(&format!("npz_store {p} {}", path_str(&npz)?))?;
    let file_len = std::fs::metadata(&path)?.len();
    let expected = base(rows, cols);
    let sum = base_sum(rows * cols);

    let server = Server::start(&cfg.dir)?;
    let store: Arc<dyn ObjectStore> = Arc::new(
        object_store::http::HttpBuilder::new()
            .with_url(format!("http://127.0.0.1:{}", server.port))
            .with_client_options(object_store::ClientOptions::new().with_allow_http(true))
            .build()?,
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let opts = RemoteOptions::new();
    let port = server.port;
    let (path, npz_path, expected, store, rt) = (&path, &npz, &expected, &store, &rt);
    let np = RefCell::new(np);
    let np = &np;
    let timed = |who: &'static str, read: &dyn Fn() -> Res<Array2<f64>>, check: bool| {
        let t = Instant::now();
        let a = read()?;
        let d = t.elapsed();
        if check {
            verify(who, &a, expected)?;
        }
        std::hint::black_box(a);
        Ok(d)
    };
    let imps = vec![
        Imp::new(NDNPY, move |check| {
            timed(NDNPY, &|| Ok(ndnpy::read_npy(path)?), check)
        }),
        Imp::new(MEMBER, move |check| {
            timed(
                MEMBER,
                &|| Ok(ndnpy::NpzReader::open(npz_path)?.by_name("a")?),
                check,
            )
        }),
        Imp::new(REMOTE_BLOCKING, {
            let opts = opts.clone();
            move |check| {
                timed(
                    REMOTE_BLOCKING,
                    &|| {
                        let file = RemoteFile::open_with_options(
                            Arc::clone(store),
                            "remote.npy".into(),
                            opts.clone(),
                        )?;
                        Ok(NpyReader::new(file)?.read_array()?)
                    },
                    check,
                )
            }
        }),
        Imp::new(REMOTE_READ_NPY, {
            let opts = opts.clone();
            move |check| {
                timed(
                    REMOTE_READ_NPY,
                    &|| {
                        let file = RemoteFile::open_with_options(
                            Arc::clone(store),
                            "remote.npy".into(),
                            opts.clone(),
                        )?;
                        Ok(Array2::read_npy(file)?)
                    },
                    check,
                )
            }
        }),
        Imp::new(REMOTE_ASYNC, {
            let opts = opts.clone();
            move |check| {
                timed(
                    REMOTE_ASYNC,
                    &|| {
                        let (store, opts) = (Arc::clone(store), opts.clone());
                        let task = rt.spawn_blocking(move || {
                            let file =
                                RemoteFile::open_with_options(store, "remote.npy".into(), opts)?;
                            NpyReader::new(file)?.read_array::<f64, ndarray::Ix2>()
                        });
                        Ok(rt.block_on(task)??)
                    },
                    check,
                )
            }
        }),
        Imp::new(REMOTE_MEMBER_BLOCKING, {
            let opts = opts.clone();
            move |check| {
                timed(
                    REMOTE_MEMBER_BLOCKING,
                    &|| {
                        let file = RemoteFile::open_with_options(
                            Arc::clone(store),
                            "remote.npz".into(),
                            opts.clone(),
                        )?;
                        Ok(NpzReader::new(file)?.by_name("a")?)
                    },
                    check,
                )
            }
        }),
        Imp::new(FLOOR, move |check| {
            let t = Instant::now();
            let body = raw_get(port, "remote.npy", file_len)?;
            let d = t.elapsed();
            if check && body.len() as u64 != file_len {
                return Err(format!("{FLOOR}: {} bytes, expected {file_len}", body.len()).into());
            }
            std::hint::black_box(body);
            Ok(d)
        }),
        Imp::new(FLOOR_PARALLEL, move |check| {
            let t = Instant::now();
            let mut body = vec![0u8; file_len as usize];
            let part = (file_len as usize).div_ceil(8);
            std::thread::scope(|sc| {
                let threads: Vec<_> = (body.chunks_mut(part).enumerate())
                    .map(|(i, slot)| {
                        sc.spawn(move || {
                            raw_range_into(port, "remote.npy", (i * part) as u64, slot)
                                .map_err(|e| e.to_string())
                        })
                    })
                    .collect();
                threads.into_iter().try_for_each(|t| {
                    t.join()
                        .map_err(|_| "a floor thread panicked".to_string())?
                })
            })?;
            let d = t.elapsed();
            if check && body[..6] != b"\x93NUMPY"[..] {
                return Err(format!("{FLOOR_PARALLEL}: not the file's bytes").into());
            }
            std::hint::black_box(body);
            Ok(d)
        }),
        Imp::new(NUMPY, move |check| {
            let mut np = np.borrow_mut();
            let d = np.timed(&format!("read {p} none"))?;
            if check {
                np.check_sum(&format!("check {p} none {rows} {cols}"), sum)?;
            }
            Ok(d)
        }),
    ];
    let rows_measured = crate::measure(imps, cfg.rounds)?;
    let mut goals = ratio_goals(
        &rows_measured,
        &[REMOTE_BLOCKING, REMOTE_READ_NPY, REMOTE_ASYNC],
        &[(NDNPY, 1.5)],
    );
    goals.extend(ratio_goals(
        &rows_measured,
        &[REMOTE_MEMBER_BLOCKING],
        &[(MEMBER, 1.5)],
    ));
    drop(server);
    Ok(Report {
        title: format!(
            "remote: read {} MiB f64, shape ({rows}, {cols}), over HTTP on loopback",
            file_len >> 20
        ),
        bytes: Some(file_len),
        rows: rows_measured,
        goals,
        notes: vec![format!(
            "Files written by np.save and np.savez (a stored member), {file_len} bytes; page \
             cache warm. ndnpy: `read_npy(path)`; ndnpy .npz member: \
             `NpzReader::open(path)?.by_name(\"a\")`. The remote rows open the object and read \
             it whole, both timed, through object_store's HTTP store from \
             `scripts/range_server.py` on 127.0.0.1 (Python's http.server with Range, the \
             body sent by os.sendfile), with `RemoteOptions::new()` (8 concurrent GETs of 8 \
             MiB): `NpyReader::new(RemoteFile::open_with_options(..)?)?.read_array()`, \
             `Array2::read_npy(RemoteFile::open_with_options(..)?)`, the first from async \
             code (`spawn_blocking` on a 2-thread tokio runtime), and \
             `NpzReader::new(RemoteFile::open_with_options(..)?)?.by_name(\"a\")`. numpy: `np.load(path)`, local. The floors, from the same server: one `GET` written on a \
             `std::net::TcpStream` and the response read whole into a `Vec` reserved at the \
             file's size (one connection; no HTTP parsing); and the file in 8 ranged `GET`s \
             of 32 MiB on 8 threads and connections at once, each body read straight into its \
             slot of one zeroed `Vec` (the remote reads' concurrency without an HTTP client)."
        )],
        ..Report::default()
    })
}
