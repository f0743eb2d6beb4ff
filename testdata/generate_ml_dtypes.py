"""Writes the bfloat16 and float8 fixtures in this folder with numpy and ml_dtypes.

Run from the repository root:  python3 testdata/generate_ml_dtypes.py
(needs ml_dtypes:  python3 -m pip install ml_dtypes)

numpy has no bfloat16 or float8 dtype. ml_dtypes (what JAX uses) adds them, but np.save writes
them as voids: a bfloat16 array's descr is '<V2', a float8_e4m3fn array's '<V1'. np.load gives
back '|V2' / '|V1' (numpy drops a void's byte order), and np.save of that writes '|V2'; numpy's
.view(ml_dtypes.bfloat16) reads the bytes in native order. tests/it/ml_dtypes.rs reads these
files, writes the bf16 ones back byte for byte, and checks what ml_dtypes reads from ours.

  bf16_c_4.npy          np.save of [1.5, -2.0, inf, nan] as bfloat16        '<V2'
  bf16_c_2x3.npy        [0, -0, 1, max, smallest subnormal, -inf], (2, 3)    '<V2'
  bf16_f_3x2.npy        the transpose of that, Fortran order                 '<V2'
  bf16_reloaded_c_4.npy np.save(np.load("bf16_c_4.npy"))                     '|V2'
  bf16_record.npy       records [('x', bfloat16), ('y', '<f4')]             [('x', '<V2'), ...]
  f8e4m3fn_c_4.npy      [1.5, -2.0, 448, nan] as float8_e4m3fn               '<V1'
"""
import os

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BF16 = ml_dtypes.bfloat16


def save(name, arr):
    np.save(os.path.join(HERE, name), arr)


def main():
    save("bf16_c_4.npy", np.array([1.5, -2.0, np.inf, np.nan], dtype=BF16))
    finfo = ml_dtypes.finfo(BF16)
    grid = np.array([0.0, -0.0, 1.0, float(finfo.max), float(finfo.smallest_subnormal),
                     -np.inf], dtype=BF16).reshape(2, 3)
    save("bf16_c_2x3.npy", grid)
    save("bf16_f_3x2.npy", grid.T)
    save("bf16_reloaded_c_4.npy", np.load(os.path.join(HERE, "bf16_c_4.npy")))
    rec = np.zeros(2, dtype=[("x", BF16), ("y", "<f4")])
    rec["x"] = np.array([0.5, -3.0], dtype=BF16)
    rec["y"] = [1.25, 2.5]
    save("bf16_record.npy", rec)
    save("f8e4m3fn_c_4.npy", np.array([1.5, -2.0, 448.0, np.nan], dtype=ml_dtypes.float8_e4m3fn))
    print(f"numpy {np.__version__}, ml_dtypes {ml_dtypes.__version__}: wrote fixtures to {HERE}")


if __name__ == "__main__":
    main()
