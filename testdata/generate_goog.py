"""Writes goog_like.npz: a small copy of the shape of matplotlib's sample data goog.npz.

Run from the repository root:  python3 testdata/generate_goog.py
matplotlib's goog.npz holds one member, price_data, an array of records with a datetime64[D]
field (numpy's dtype below). This file has the same dtype and member name, eight trading days
of made-up prices, and is written with np.savez, as matplotlib's is. The file is deterministic
(numpy stamps every member 1980-01-01). tests/it/record_times.rs reads it through a derived
struct and writes it back byte for byte.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

DTYPE = np.dtype([("date", "<M8[D]"), ("open", "<f8"), ("high", "<f8"), ("low", "<f8"),
                  ("close", "<f8"), ("volume", "<i8"), ("adj_close", "<f8")])


def price_data():
    dates = np.array(["2004-08-19", "2004-08-20", "2004-08-23", "2004-08-24", "2004-08-25",
                      "2004-08-26", "2004-08-27", "2004-08-30"], dtype="M8[D]")
    a = np.zeros(len(dates), dtype=DTYPE)
    a["date"] = dates
    i = np.arange(len(dates))
    a["open"] = 100.0 + 1.5 * i
    a["high"] = a["open"] + 2.25
    a["low"] = a["open"] - 1.75
    a["close"] = a["open"] + 0.5
    a["volume"] = 44_000_000 - 1_000_000 * i
    a["adj_close"] = a["close"]
    return a


def main():
    np.savez(os.path.join(HERE, "goog_like.npz"), price_data=price_data())
    print(f"numpy {np.__version__}: wrote goog_like.npz to {HERE}")


if __name__ == "__main__":
    main()
