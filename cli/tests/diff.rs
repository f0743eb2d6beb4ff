//! `ndnpy diff` against numpy's comparisons (`==` and `isclose` with `equal_nan`).

mod common;
use common::{fx, ndnpy, numpy};
use serde_json::Value;

fn diff_json(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["diff", "--json"];
    all.extend_from_slice(args);
    let r = ndnpy(&all);
    assert!(r.code == 0 || r.code == 1, "ndnpy {all:?}: {}", r.stderr);
    (r.code, serde_json::from_str(&r.stdout).unwrap())
}

/// numpy's count of differing elements and the first ten indices.
fn numpy_diff(a: &str, b: &str, rtol: f64, atol: f64) -> (u64, Value) {
    let out = numpy(&format!(
        "a, b = np.load(D + '{a}'), np.load(D + '{b}')\n\
         bad = ~np.isclose(a, b, rtol={rtol:?}, atol={atol:?}, equal_nan=True)\n\
         print(int(bad.sum()))\n\
         print(json.dumps(np.argwhere(bad)[:10].tolist()))"
    ));
    let mut lines = out.lines();
    let n = lines.next().unwrap().parse().unwrap();
    (n, serde_json::from_str(lines.next().unwrap()).unwrap())
}

#[test]
fn diff_counts_and_indices_match_numpy() {
    for (a, b, rtol, atol) in [
        ("f8.npy", "f8_close.npy", 0.0, 0.0),
        ("f8.npy", "f8_close.npy", 0.0, 1e-10),
        ("f8.npy", "f8_close.npy", 1e-8, 0.0),
        ("f8.npy", "f8_f.npy", 0.0, 0.0),
        ("big_2d.npy", "big_2d_changed.npy", 0.0, 0.0),
        ("big_2d.npy", "big_2d_changed.npy", 1e-9, 0.0),
        ("big_3d_f.npy", "big_3d_f_changed.npy", 0.0, 0.0),
        ("f8_special.npy", "f8_special.npy", 0.0, 0.0),
    ] {
        let (rt, at) = (rtol.to_string(), atol.to_string());
        let (code, got) = diff_json(&[&fx(a), &fx(b), "--rtol", &rt, "--atol", &at]);
        let (n, first) = numpy_diff(a, b, rtol, atol);
        let d = &got["differences"];
        if n == 0 {
            assert_eq!(code, 0, "{a} {b}: {got}");
            assert_eq!(got["equal"], true);
        } else {
            assert_eq!(code, 1, "{a} {b}");
            assert_eq!(d["differing"], n, "{a} {b} {rtol} {atol}");
            let idx: Vec<Value> = d["first"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["index"].clone())
                .collect();
            assert_eq!(Value::Array(idx), first, "{a} {b} {rtol} {atol}");
        }
    }
}

#[test]
fn diff_reports_dtype_shape_fields_and_members() {
    let (code, got) = diff_json(&[&fx("f8.npy"), &fx("f8_other_shape.npy")]);
    assert_eq!(code, 1);
    assert_eq!(
        got["differences"]["shape"],
        serde_json::json!([[2, 3], [6]])
    );

    let (code, got) = diff_json(&[&fx("rec_nan.npy"), &fx("rec_nan_changed.npy")]);
    assert_eq!(code, 1);
    let f = &got["differences"]["first"][0];
    assert_eq!(
        (
            f["index"].clone(),
            f["field"].clone(),
            f["a"].clone(),
            f["b"].clone()
        ),
        (
            serde_json::json!([2]),
            serde_json::json!("n"),
            serde_json::json!("7"),
            serde_json::json!("70")
        )
    );

    let (code, got) = diff_json(&[&fx("ab.npz"), &fx("ab2.npz")]);
    assert_eq!(code, 1);
    assert_eq!(got["removed"], serde_json::json!(["label"]));
    assert_eq!(got["added"], serde_json::json!(["extra"]));
    let changed = got["changed"].as_object().unwrap();
    assert_eq!(changed.keys().collect::<Vec<_>>(), ["a"]);
    assert_eq!(changed["a"]["first"][0]["index"], serde_json::json!([3]));

    // Stored and deflated archives of the same arrays are equal.
    let (code, _) = diff_json(&[
        &format!("{}:b", fx("ab.npz")),
        &format!("{}:b", fx("ab_z.npz")),
    ]);
    assert_eq!(code, 0);

    let r = ndnpy(&["diff", &fx("ab.npz"), &fx("ab2.npz")]);
    assert_eq!(
        r.stdout,
        format!(
            "--- {a}\n+++ {b}\n- label: only in {a}\n+ extra: only in {b}\n~ a:\n    values: 1 of 5 differ\n      [3]: 3 -> 30\n",
            a = fx("ab.npz"),
            b = fx("ab2.npz")
        )
    );
    let r = ndnpy(&["diff", &fx("f8.npy"), &fx("f8_f.npy")]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
    let r = ndnpy(&["diff", &fx("ab.npz"), &fx("ab.npz")]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
    // Another byte order: the dtype differs, the values do not.
    let r = ndnpy(&["diff", &fx("i2_be.npy"), &fx("pr_0d_bool.npy")]);
    assert_eq!(r.code, 1);
    let (code, got) = diff_json(&[&fx("f8.npy"), &fx("f8_be.npy")]);
    assert_eq!(code, 1);
    assert_eq!(
        got["differences"]["dtype"],
        serde_json::json!(["float64", ">f8"])
    );
    assert_eq!(got["differences"]["values_equal"], true);
    let r = ndnpy(&["diff", &fx("f8.npy"), &fx("f8_be.npy")]);
    assert!(
        r.stdout.ends_with("dtype: float64 -> >f8\nvalues: equal\n"),
        "{}",
        r.stdout
    );

    // Members that are not arrays are compared as bytes.
    let r = ndnpy(&["diff", &fx("non_array.npz"), &fx("non_array2.npz")]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("~ notes.txt:\n    19 bytes (not an array) -> 28 bytes (not an array)"),
        "{}",
        r.stdout
    );
    let r = ndnpy(&["diff", &fx("non_array.npz"), &fx("non_array.npz")]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
    let r = ndnpy(&["diff", &fx("f8.npy")]);
    assert_eq!(r.code, 2);
    let r = ndnpy(&["diff", &fx("f8.npy"), &fx("f8.npy"), "--rtol", "x"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--rtol"), "{}", r.stderr);
}
