//! Reads an `.npy` file from an S3-compatible server: uploads `testdata/example.npy`, then
//! reads its header, one row, one element and the whole array through an `NpyReader` over a
//! [`RemoteFile`](ndnpy::remote::RemoteFile), and compares each with the local read. It starts no server: give it one.
//!
//! ```text
//! python3 -m moto.server -H 127.0.0.1 -p 5555 &      # or MinIO, or S3 itself
//! curl -X PUT http://127.0.0.1:5555/ndnpy             # create the bucket
//! NDNPY_S3_ENDPOINT=http://127.0.0.1:5555 NDNPY_S3_BUCKET=ndnpy \
//!     cargo run --features object_store --example remote
//! ```
//!
//! `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_REGION` are used when set (moto
//! accepts any; the defaults are `test`, `test` and `us-east-1`).

use ndarray::{s, Array2};
use ndnpy::{remote::RemoteFile, NpyReader};
use object_store::aws::AmazonS3Builder;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};
use std::sync::Arc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let var = |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.into());
    let endpoint = std::env::var("NDNPY_S3_ENDPOINT")
        .map_err(|_| "set NDNPY_S3_ENDPOINT (http://127.0.0.1:5555) and NDNPY_S3_BUCKET")?;
    let bucket = var("NDNPY_S3_BUCKET", "ndnpy");
    let store: Arc<dyn ObjectStore> = Arc::new(
        AmazonS3Builder::new()
            .with_endpoint(&endpoint)
            .with_allow_http(true)
            .with_bucket_name(&bucket)
            .with_region(var("AWS_REGION", "us-east-1"))
            .with_access_key_id(var("AWS_ACCESS_KEY_ID", "test"))
            .with_secret_access_key(var("AWS_SECRET_ACCESS_KEY", "test"))
            .build()?,
    );

    // Upload the file (object_store is async; a small runtime runs the one call).
    let bytes = std::fs::read("testdata/example.npy")?;
    let path = object_store::path::Path::from("examples/example.npy");
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(store.put(&path, PutPayload::from(bytes)))?;
    println!("uploaded s3://{bucket}/{path} to {endpoint}");

    let local: Array2<f64> = ndnpy::read_npy("testdata/example.npy")?;
    let mut npy = NpyReader::new(RemoteFile::open(store, path)?)?;
    let info = npy.info();
    println!(
        "header: {} {:?}, {} bytes of data at offset {}",
        info.header.dtype, info.header.shape, info.data_len, info.data_offset
    );
    let row: Array2<f64> = npy.read_rows(1..2)?;
    assert_eq!(row, local.slice(s![1..2, ..]));
    println!("row 1: {row}");
    let x: f64 = npy.read_element(&[0, 2])?;
    assert_eq!(x, local[[0, 2]]);
    println!("element [0, 2]: {x}");
    let all: Array2<f64> = npy.read_array()?;
    assert_eq!(all, local);
    println!("the whole array equals the local read:\n{all}");
    Ok(())
}
