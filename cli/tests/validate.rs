//! `ndnpy validate`: a verdict per file, in agreement with numpy on what is damaged.

mod common;
use common::{fx, ndnpy, numpy};

#[test]
fn validate_gives_a_verdict_per_file_and_exit_status() {
    let good = [
        "f8.npy",
        "rec_mixed.npy",
        "ab.npz",
        "ab_z.npz",
        "dates.npy",
        "object.npy",
    ];
    let bad = [
        "bad_truncated.npy",
        "bad_magic.npy",
        "bad_header.npy",
        "bad_crc.npz",
    ];
    // numpy agrees on which are damaged.
    let loads = numpy(&format!(
        "for f in {:?}:\n    try:\n        r = np.load(D + f, allow_pickle=True)\n        [r[k] for k in r.files] if f.endswith('.npz') else r\n        print('ok')\n    except Exception:\n        print('bad')",
        good.iter().chain(&bad).collect::<Vec<_>>()
    ));
    let verdicts: Vec<&str> = loads.lines().collect();
    assert_eq!(verdicts, [["ok"; 6].as_slice(), &["bad"; 4]].concat());

    let paths: Vec<String> = good.iter().map(|f| fx(f)).collect();
    let mut args = vec!["validate"];
    args.extend(paths.iter().map(String::as_str));
    let r = ndnpy(&args);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stdout.lines().count(), good.len());
    assert!(r.stdout.lines().all(|l| l.contains(": ok")), "{}", r.stdout);
    assert!(r
        .stdout
        .contains("object.npy: ok (pickled Python objects, not checked)"));

    for (f, why) in [
        ("bad_truncated.npy", "truncated"),
        ("bad_magic.npy", "neither a .npy file"),
        ("bad_header.npy", "'descr'"),
        (
            "bad_crc.npz",
            "member a: archive member \"a.npy\" fails its CRC-32 check",
        ),
        // numpy loads it, but a bool byte other than 0 and 1 is not a bool.
        ("bad_bool.npy", "a bool is 0x00 or 0x01"),
    ] {
        let r = ndnpy(&["validate", &fx("f8.npy"), &fx(f)]);
        assert_eq!(r.code, 1, "{f}: {}", r.stdout);
        let line = r.stdout.lines().nth(1).unwrap();
        assert!(line.starts_with(&format!("{}: invalid: ", fx(f))), "{line}");
        assert!(line.contains(why), "{line}");
    }
    let r = ndnpy(&["validate", &fx("missing.npy")]);
    assert_eq!(r.code, 3);
    assert!(
        r.stdout.contains("missing.npy: unreadable:"),
        "{}",
        r.stdout
    );
}

/// A header that claims 80 GB over an empty body: every command says the file is truncated
/// (exit 4) at once, without sizing anything from the claim.
#[test]
fn a_header_that_lies_about_its_size_is_refused_by_every_command() {
    let liar = common::fixtures().join("liar.npy");
    numpy(&format!(
        "np.lib.format.write_array_header_1_0(open({:?}, 'wb'), \
         {{'descr': '<f8', 'fortran_order': True, 'shape': (100000, 100000)}})",
        liar.display().to_string()
    ));
    let l = liar.display().to_string();
    let out = common::fixtures()
        .join("liar_out.npy")
        .display()
        .to_string();
    let png = common::fixtures().join("liar.png").display().to_string();
    for args in [
        vec!["show", &l],
        vec!["stats", &l],
        vec!["diff", &l, &l],
        vec!["convert", &l, &out, "--order", "C"],
        vec!["plot", &l, "-o", &png],
    ] {
        let r = ndnpy(&args);
        assert_eq!(r.code, 4, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("truncated") && r.stderr.contains("liar.npy"),
            "{}",
            r.stderr
        );
    }
    let r = ndnpy(&["validate", &l]);
    assert_eq!(r.code, 1);
    // ls reads the header only: it lists what the header claims.
    let r = ndnpy(&["ls", &l]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("74.5 GiB"), "{}", r.stdout);
}
