//! The server the remote tests start, and a store decorator that counts requests.

use async_trait::async_trait;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use object_store::aws::AmazonS3Builder;
use object_store::path::Path;
use object_store::{
    ClientOptions, CopyOptions, GetOptions, GetResult, GetResultPayload, ListResult,
    MultipartUpload, ObjectMeta, ObjectStore, ObjectStoreExt, PutMultipartOptions, PutOptions,
    PutPayload, PutResult, RetryConfig,
};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

pub(crate) const BUCKET: &str = "ndnpy";

/// A moto S3 server on a free loopback port; killed when dropped, and exits by itself when
/// this process does (its wrapper watches its parent).
pub(crate) struct Moto {
    pub(crate) child: Child,
    pub(crate) port: u16,
}

impl Moto {
    pub(crate) fn start() -> Moto {
        let probe = Command::new("python3")
            .args(["-c", "import moto.server, werkzeug, flask"])
            .output()
            .expect("cannot run python3");
        assert!(
            probe.status.success(),
            "the remote tests need moto's S3 server: python3 -m pip install 'moto[server]' \
             ({})",
            String::from_utf8_lossy(&probe.stderr).trim()
        );
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        // The server exits when its parent (this test binary) is gone.
        let script = format!(
            "import os, sys, threading, time\n\
             parent = os.getppid()\n\
             def watch():\n\
             \x20   while os.getppid() == parent:\n\
             \x20       time.sleep(0.5)\n\
             \x20   os._exit(0)\n\
             threading.Thread(target=watch, daemon=True).start()\n\
             from moto.server import main\n\
             main(['-H', '127.0.0.1', '-p', '{port}'])\n"
        );
        let child = Command::new("python3")
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start moto");
        let moto = Moto { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
                // Create the bucket (moto does not check signatures).
                write!(
                    s,
                    "PUT /{BUCKET} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\n\
                     Connection: close\r\n\r\n"
                )
                .unwrap();
                let mut status = String::new();
                BufReader::new(s).read_line(&mut status).unwrap();
                assert!(status.contains(" 200"), "creating the bucket: {status}");
                return moto;
            }
            assert!(Instant::now() < deadline, "moto did not start in 30 s");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub(crate) fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// A store for this server's bucket: short timeouts and one retry, so that a dead
    /// server is an error in seconds.
    pub(crate) fn store(&self) -> Arc<dyn ObjectStore> {
        Arc::new(store_at(&self.endpoint()))
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn store_at(endpoint: &str) -> object_store::aws::AmazonS3 {
    AmazonS3Builder::new()
        .with_endpoint(endpoint)
        .with_bucket_name(BUCKET)
        .with_region("us-east-1")
        .with_access_key_id("test")
        .with_secret_access_key("test")
        .with_retry(RetryConfig {
            max_retries: 1,
            retry_timeout: Duration::from_secs(2),
            ..RetryConfig::default()
        })
        .with_client_options(
            // (These replace the builder's client options: allow_http is one of them.)
            ClientOptions::new()
                .with_allow_http(true)
                .with_timeout(Duration::from_secs(3))
                .with_connect_timeout(Duration::from_secs(1)),
        )
        .build()
        .unwrap()
}

/// The server shared by the tests that do not kill theirs.
pub(crate) fn moto() -> &'static Moto {
    static MOTO: OnceLock<Moto> = OnceLock::new();
    MOTO.get_or_init(Moto::start)
}

/// A runtime for the async calls.
pub(crate) fn rt() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    })
}

/// Uploads `bytes` as `name`.
pub(crate) fn put(store: &Arc<dyn ObjectStore>, name: &str, bytes: Vec<u8>) {
    rt().block_on(store.put(&Path::from(name), PutPayload::from(bytes)))
        .unwrap();
}

/// Counts the GETs made through it and the body bytes they return, and the requests of
/// writes (`uploads`); everything is forwarded to the real store.
pub(crate) struct Counting {
    pub(crate) inner: Arc<dyn ObjectStore>,
    pub(crate) requests: AtomicU64,
    pub(crate) bytes: Arc<AtomicU64>,
    /// Called with each GET's number (from 1) before it is forwarded.
    pub(crate) before_get: Option<Box<dyn Fn(u64) + Send + Sync>>,
    pub(crate) uploads: Arc<UploadCounts>,
}

/// The write requests made through a `Counting` store.
#[derive(Debug, Default)]
pub(crate) struct UploadCounts {
    /// Single PUTs.
    pub(crate) puts: AtomicU64,
    /// Multipart uploads created.
    pub(crate) creates: AtomicU64,
    /// Parts uploaded (counted when handed over).
    pub(crate) parts: AtomicU64,
    /// Body bytes of PUTs and parts.
    pub(crate) bytes: AtomicU64,
    pub(crate) completes: AtomicU64,
    pub(crate) aborts: AtomicU64,
    /// How long each completion waits before it is sent, in milliseconds (not reset by
    /// `take`).
    pub(crate) complete_delay_ms: AtomicU64,
    /// Parts whose upload is running now, and the most at once so far.
    pub(crate) in_flight: AtomicU64,
    pub(crate) max_in_flight: AtomicU64,
}

impl UploadCounts {
    /// (puts, creates, parts, completes, aborts) since the last call; resets them and the
    /// byte count and maximum too.
    pub(crate) fn take(&self) -> (u64, u64, u64, u64, u64) {
        self.bytes.swap(0, Ordering::SeqCst);
        self.max_in_flight.swap(0, Ordering::SeqCst);
        (
            self.puts.swap(0, Ordering::SeqCst),
            self.creates.swap(0, Ordering::SeqCst),
            self.parts.swap(0, Ordering::SeqCst),
            self.completes.swap(0, Ordering::SeqCst),
            self.aborts.swap(0, Ordering::SeqCst),
        )
    }
}

/// A multipart upload that counts its requests into `counts`.
#[derive(Debug)]
struct CountingUpload {
    inner: Box<dyn MultipartUpload>,
    counts: Arc<UploadCounts>,
}

#[async_trait]
impl MultipartUpload for CountingUpload {
    fn put_part(&mut self, data: PutPayload) -> object_store::UploadPart {
        self.counts.parts.fetch_add(1, Ordering::SeqCst);
        self.counts
            .bytes
            .fetch_add(data.content_length() as u64, Ordering::SeqCst);
        let part = self.inner.put_part(data);
        let counts = Arc::clone(&self.counts);
        Box::pin(async move {
            let now = counts.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            counts.max_in_flight.fetch_max(now, Ordering::SeqCst);
            let result = part.await;
            counts.in_flight.fetch_sub(1, Ordering::SeqCst);
            result
        })
    }

    async fn complete(&mut self) -> object_store::Result<PutResult> {
        self.counts.completes.fetch_add(1, Ordering::SeqCst);
        let delay = self.counts.complete_delay_ms.load(Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(delay)).await;
        self.inner.complete().await
    }

    async fn abort(&mut self) -> object_store::Result<()> {
        self.counts.aborts.fetch_add(1, Ordering::SeqCst);
        self.inner.abort().await
    }
}

impl std::fmt::Debug for Counting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Counting({:?})", self.inner)
    }
}

impl Counting {
    pub(crate) fn new(inner: Arc<dyn ObjectStore>) -> Arc<Counting> {
        Arc::new(Counting {
            inner,
            requests: AtomicU64::new(0),
            bytes: Arc::new(AtomicU64::new(0)),
            before_get: None,
            uploads: Arc::default(),
        })
    }

    /// A counting store that calls `hook` with each GET's number before forwarding it.
    pub(crate) fn with_hook(
        inner: Arc<dyn ObjectStore>,
        hook: impl Fn(u64) + Send + Sync + 'static,
    ) -> Arc<Counting> {
        Arc::new(Counting {
            inner,
            requests: AtomicU64::new(0),
            bytes: Arc::new(AtomicU64::new(0)),
            before_get: Some(Box::new(hook)),
            uploads: Arc::default(),
        })
    }

    /// (requests, bytes) since the last call.
    pub(crate) fn take(&self) -> (u64, u64) {
        (
            self.requests.swap(0, Ordering::SeqCst),
            self.bytes.swap(0, Ordering::SeqCst),
        )
    }
}

impl std::fmt::Display for Counting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Counting({})", self.inner)
    }
}

#[async_trait]
impl ObjectStore for Counting {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        self.uploads.puts.fetch_add(1, Ordering::SeqCst);
        self.uploads
            .bytes
            .fetch_add(payload.content_length() as u64, Ordering::SeqCst);
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.uploads.creates.fetch_add(1, Ordering::SeqCst);
        let inner = self.inner.put_multipart_opts(location, opts).await?;
        Ok(Box::new(CountingUpload {
            inner,
            counts: Arc::clone(&self.uploads),
        }))
    }

    async fn get_opts(
        &self,
        location: &Path,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        let n = self.requests.fetch_add(1, Ordering::SeqCst) + 1;
        if let Some(hook) = &self.before_get {
            hook(n);
        }
        let mut result = self.inner.get_opts(location, options).await?;
        let counter = Arc::clone(&self.bytes);
        #[allow(unreachable_patterns)]
        match result.payload {
            GetResultPayload::Stream(stream) => {
                result.payload = GetResultPayload::Stream(
                    stream
                        .inspect_ok(move |b| {
                            counter.fetch_add(b.len() as u64, Ordering::SeqCst);
                        })
                        .boxed(),
                )
            }
            _ => panic!("a file payload from S3"),
        }
        Ok(result)
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Path>>,
    ) -> BoxStream<'static, object_store::Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &Path,
        to: &Path,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}

/// `scripts/range_server.py`, a plain HTTP server with Range support, serving `dir` on a free
/// loopback port; killed when dropped, and exits by itself when this process does.
pub(crate) struct HttpServer {
    child: Child,
    port: u16,
    pub(crate) dir: std::path::PathBuf,
}

impl HttpServer {
    pub(crate) fn start() -> HttpServer {
        // One directory per server: tests run at once, and each server's drop removes its own.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ndnpy-http-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut child = Command::new("python3")
            .arg("scripts/range_server.py")
            .arg(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("cannot start scripts/range_server.py");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().expect("the server prints its port");
        HttpServer { child, port, dir }
    }

    /// An HTTP store of this server's files.
    pub(crate) fn store(&self) -> Arc<dyn ObjectStore> {
        Arc::new(
            object_store::http::HttpBuilder::new()
                .with_url(format!("http://127.0.0.1:{}", self.port))
                .with_client_options(
                    ClientOptions::new()
                        .with_allow_http(true)
                        .with_timeout(Duration::from_secs(3)),
                )
                .build()
                .unwrap(),
        )
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A loopback HTTP proxy in front of `upstream` that answers `503 Slow Down` to every request
/// whose head (request line and headers) `fails` (its retries too), and forwards everything
/// else, each on a connection of its own.
pub(crate) fn failing_proxy(
    upstream: u16,
    fails: impl Fn(&str) -> bool + Send + Sync + 'static,
) -> String {
    let fails = Arc::new(fails);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { continue };
            let fails = Arc::clone(&fails);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(client.try_clone().unwrap());
                let mut client = client;
                loop {
                    let mut head = String::new();
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        head.push_str(&line);
                        if line == "\r\n" {
                            break;
                        }
                    }
                    let len: usize = head
                        .lines()
                        .find_map(|l| {
                            let l = l.to_ascii_lowercase();
                            l.strip_prefix("content-length:")
                                .map(|v| v.trim().parse().unwrap())
                        })
                        .unwrap_or(0);
                    let mut body = vec![0; len];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    if fails(&head) {
                        let _ = client
                            .write_all(b"HTTP/1.1 503 Slow Down\r\nContent-Length: 0\r\n\r\n");
                        continue;
                    }
                    let head = head.replacen("\r\n", "\r\nConnection: close\r\n", 1);
                    let mut up = TcpStream::connect(("127.0.0.1", upstream)).unwrap();
                    up.write_all(head.as_bytes()).unwrap();
                    up.write_all(&body).unwrap();
                    let mut response = Vec::new();
                    let _ = up.read_to_end(&mut response);
                    let _ = client.write_all(&response);
                    return;
                }
            });
        }
    });
    format!("http://{addr}")
}

/// Runs a python3 script with numpy; panics with its stderr if it fails.
pub(crate) fn python(script: &str) {
    let out = Command::new("python3")
        .args(["-c", script])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "python3 failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
