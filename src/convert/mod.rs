//! Conversions to and from other formats, each behind its feature: Arrow arrays (`arrow`),
//! Parquet files (`parquet`) and safetensors files (`safetensors`).

#[cfg(feature = "arrow")]
pub mod arrow;
#[cfg(feature = "parquet")]
pub mod parquet;
#[cfg(feature = "safetensors")]
pub mod safetensors;
