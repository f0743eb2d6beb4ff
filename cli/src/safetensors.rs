//! `ndnpy convert` to and from safetensors, chosen by the `.safetensors` extension: the
//! library's `ndnpy::safetensors` does the work (streamed, atomic output, hostile headers
//! checked); this maps the command line onto it.

use crate::convert::Options;
use crate::fail::{Fail, Res};
use crate::source::{file_kind, Target};
use ndnpy::safetensors::SafetensorsOptions;
use std::path::Path;

/// Whether `path` names a safetensors file, by its extension.
pub fn is_safetensors(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("safetensors"))
}

/// Whether this conversion is one of ours: either side is a `.safetensors` file.
pub fn involved(input: &Target, output: &Path) -> bool {
    is_safetensors(&input.path) || is_safetensors(output)
}

/// `--void-as`: what a two-byte void holds. Only `bf16` is known.
pub fn parse_void_as(s: &str) -> Res<bool> {
    match s {
        "bf16" | "bfloat16" => Ok(true),
        _ => Err(Fail::usage(format!(
            "--void-as {s:?}: expected bf16 (two-byte voids read as bfloat16)"
        ))),
    }
}

/// Converts `input` into `output`, one of them a safetensors file.
pub fn run(input: &Target, output: &Path, opts: &Options) -> Res<()> {
    if opts.fortran.is_some() || opts.byte_order.is_some() || opts.dtype.is_some() || opts.compress
    {
        return Err(Fail::usage(
            "--order, --byte-order, --dtype and --compress do not apply to safetensors \
             conversions (safetensors data is little-endian C order; .npz output is stored, \
             as np.savez writes it)",
        ));
    }
    let name = input.display();
    let out_name = output.display().to_string();
    let mut st = SafetensorsOptions::new().void_as_bf16(opts.void_as_bf16);
    if is_safetensors(&input.path) {
        if opts.void_as_bf16 {
            return Err(Fail::usage(
                "--void-as applies to .npy/.npz input: BF16 tensors are written as '<V2', \
                 as np.save writes ml_dtypes' bfloat16",
            ));
        }
        if is_safetensors(output) {
            return Err(Fail::usage(format!(
                "{name} and {out_name} are both safetensors files: convert to .npz or .npy"
            )));
        }
        let to_npz = output
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("npz"));
        if let Some(member) = &input.member {
            if to_npz {
                return Err(Fail::usage(format!(
                    "{name}: a tensor is written as .npy; the whole file converts to .npz"
                )));
            }
            st = st.tensor_name(member.clone());
        }
        let result = if to_npz {
            st.safetensors_to_npz(&input.path, output)
        } else {
            st.safetensors_to_npy(&input.path, output)
        };
        return result.map_err(|e| Fail::lib(&name, e));
    }
    if input.member.is_some() {
        return Err(Fail::usage(format!(
            "{name}: a safetensors file takes the whole archive; convert the member to .npy \
             first, or drop :MEMBER"
        )));
    }
    file_kind(&input.path)?;
    st.npz_to_safetensors(&input.path, output)
        .map_err(|e| Fail::lib(&name, e))
}
