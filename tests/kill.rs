//! Kill tests: a child process writes with each path writer in a loop and is killed (SIGKILL)
//! at random, seeded points; numpy then checks that the file at the final name is absent
//! (create-new), the old complete array, or a new complete array, and the directory is checked
//! for temporary files: none for unnamed (`O_TMPFILE`) writes, and none after the next write
//! for named ones.
//!
//! This binary is its own child: run with `NDNPY_KILL_ROLE` set, `main` plays that writer
//! instead of running the tests. `NDNPY_KILL_SEED` picks other kill points.

#[cfg(unix)]
mod common;

#[cfg(unix)]
fn main() {
    unix::main();
}

#[cfg(not(unix))]
fn main() {
    println!("kill tests: Unix only");
}

#[cfg(unix)]
mod unix {
    use super::common::{python, Scratch};
    use ndarray::{arr0, Array1, Array2, Ix1};
    use ndnpy::{NpyAppender, NpyMmapMut, NpzWriter, WriteOptions};
    use std::io::{BufRead, BufReader, Write};
    use std::path::{Path, PathBuf};
    use std::process::{Child, Command, Stdio};
    use std::time::{Duration, Instant};

    const ROLE: &str = "NDNPY_KILL_ROLE";
    const DIR: &str = "NDNPY_KILL_DIR";

    /// Elements of generation 0; generation `g` has `BASE + 7 g`, so its length tells `g`.
    const BASE: usize = 128 * 1024;
    /// Columns of the appended array, rows per append, rows before the appender starts over.
    const COLS: usize = 64;
    const BLOCK: usize = 64;
    const MAX_ROWS: usize = 16 * 1024;

    /// The array of generation `g`: `g * 1e7 + i`.
    fn gen(g: usize) -> Array1<f64> {
        Array1::from_shape_fn(BASE + 7 * g, |i| (g * 10_000_000 + i) as f64)
    }

    /// Rows `start..start + n` of the appended array: `i * COLS + j`.
    fn rows(start: usize, n: usize) -> Array2<f64> {
        Array2::from_shape_fn((n, COLS), |(i, j)| ((start + i) * COLS + j) as f64)
    }

    /// The numpy side: checks each `(kind, path, generation)` and prints one line per file.
    const CHECKER: &str = r#"
import sys, json, numpy as np
BASE, COLS = int(sys.argv[2]), int(sys.argv[3])
def gen(g):
    return g * 1e7 + np.arange(BASE + 7 * g, dtype=np.float64)
def gen_of(a):
    assert a.dtype == np.float64 and a.ndim == 1, (a.dtype, a.shape)
    g, r = divmod(a.shape[0] - BASE, 7)
    assert g >= 0 and r == 0, a.shape
    return g
for kind, path, want in json.load(open(sys.argv[1])):
    try:
        g = None
        if kind == "npy":
            a = np.load(path)
            g = gen_of(a)
            assert want is None or g == want, (g, want)
            assert np.array_equal(a, gen(g)), "values"
        elif kind == "npz":
            z = np.load(path)
            assert sorted(z.files) == ["a", "b", "c"], z.files
            g = gen_of(z["a"])
            assert np.array_equal(z["a"], gen(g)), "a"
            assert np.array_equal(z["b"], np.full(g % 7 + 1, g, np.int32)), "b"
            assert z["c"].shape == () and int(z["c"]) == g, "c"
        elif kind == "mmap":
            a = np.load(path, mmap_mode="r")
            g = gen_of(a)
            # Filled in place after the atomic create: each element is 0 or its value.
            assert ((a == gen(g)) | (a == 0)).all(), "values"
        elif kind == "parquet":
            import pyarrow.parquet as pq
            a = pq.read_table(path).column("values").to_numpy()
            g = gen_of(a)
            assert np.array_equal(a, gen(g)), "values"
        elif kind == "safetensors":
            from safetensors.numpy import load_file
            t = load_file(path)
            assert sorted(t) == ["a"], sorted(t)
            g = gen_of(t["a"])
            assert np.array_equal(t["a"], gen(g)), "values"
        elif kind == "append":
            a = np.load(path)
            assert a.dtype == np.float64 and a.ndim == 2 and a.shape[1] == COLS, a.shape
            assert np.array_equal(a, np.arange(a.size, dtype=np.float64).reshape(-1, COLS)), "values"
            g = a.shape[0]
        else:
            raise ValueError(kind)
        print("ok", path, g)
    except Exception as e:
        print("BAD", path, repr(e))
"#;

    /// One file for numpy to check.
    struct Check {
        kind: &'static str,
        path: PathBuf,
        gen: Option<usize>,
    }

    /// Runs the numpy checker on `checks`; panics with every bad file. Returns what each
    /// file held: its generation, or its number of rows.
    fn numpy_check(dir: &Path, checks: &[Check]) -> Vec<String> {
        let spec: Vec<String> = checks
            .iter()
            .map(|c| {
                format!(
                    "[\"{}\", \"{}\", {}]",
                    c.kind,
                    c.path.display(),
                    c.gen.map_or("null".to_string(), |g| g.to_string())
                )
            })
            .collect();
        let spec_path = dir.join("checks.json");
        std::fs::write(&spec_path, format!("[{}]", spec.join(","))).unwrap();
        let out = python(
            CHECKER,
            &[
                &spec_path,
                Path::new(&BASE.to_string()),
                Path::new(&COLS.to_string()),
            ],
        );
        let bad: Vec<&str> = out.lines().filter(|l| !l.starts_with("ok ")).collect();
        assert!(bad.is_empty(), "numpy found bad files:\n{}", bad.join("\n"));
        assert_eq!(out.lines().count(), checks.len(), "{out}");
        out.lines()
            .map(|l| l.rsplit(' ').next().unwrap_or_default().to_string())
            .collect()
    }

    /// A small seeded generator (splitmix64) for the kill points.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) % n
        }
    }

    /// Starts this binary as the writer `role` in `dir` and waits until it is about to write.
    fn spawn(role: &str, dir: &Path) -> Child {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .env(ROLE, role)
            .env(DIR, dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line, "ready\n", "the {role} child did not start");
        child
    }

    /// Lets the child write for up to `max_ms` (a random time), then kills it.
    fn kill_after(mut child: Child, rng: &mut Rng, max_ms: u64) {
        std::thread::sleep(Duration::from_micros(rng.below(max_ms * 1000)));
        child.kill().unwrap();
        let status = child.wait().unwrap();
        assert!(!status.success(), "the child ended on its own: {status}");
    }

    /// The names in `dir` that are this crate's temporary files.
    fn temp_files(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".ndnpy-tmp-"))
            .collect();
        v.sort();
        v
    }

    /// The names in `dir`, sorted.
    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// Checks what a killed replacing writer left in `round`: at most a temporary file of
    /// `target` (only if the kill fell between its link and its rename), and returns how many.
    fn leftovers_of(round: &Path, target: &str) -> usize {
        let left = temp_files(round);
        for name in &left {
            assert!(
                name.starts_with(&format!(".{target}.ndnpy-tmp-")),
                "unexpected temporary file {name}"
            );
        }
        left.len()
    }

    // ---- The children: each writes in a loop until killed. ----

    fn child(role: &str, dir: &Path) {
        let target = dir.join("a.npy");
        let ready = || {
            let mut out = std::io::stdout();
            out.write_all(b"ready\n").unwrap();
            out.flush().unwrap();
        };
        match role {
            "write_npy" | "write_npy_durable" => {
                let opts = WriteOptions::new().durable(role.ends_with("durable"));
                let arrays: Vec<_> = (1..=4).map(gen).collect();
                ready();
                for g in 0.. {
                    opts.write_npy(&target, &arrays[g % 4]).unwrap();
                }
            }
            "write_file_atomically" => {
                // An array streamed in blocks through NpyWriter: np.save's bytes, written in
                // steps, published whole or not at all.
                let arrays: Vec<_> = (1..=4).map(gen).collect();
                ready();
                for g in 0.. {
                    let a = &arrays[g % 4];
                    ndnpy::write_file_atomically(&target, &WriteOptions::new(), |out| {
                        let mut w = ndnpy::NpyWriter::<_, f64>::new(out, a.len())?;
                        for block in a.axis_chunks_iter(ndarray::Axis(0), 1 << 12) {
                            w.write_block(&block)?;
                        }
                        w.finish().map(drop)
                    })
                    .unwrap();
                }
            }
            "npy_to_parquet" | "parquet_to_npy" | "npz_to_safetensors" => {
                // A conversion's output, replaced again and again from the inputs the test
                // wrote beside the round's directory.
                let inputs = dir.parent().unwrap().join("in");
                let target = dir.join(conversion_target(role));
                ready();
                for g in 0.. {
                    convert(
                        role,
                        &inputs.join(conversion_input(role, g % 4 + 1)),
                        &target,
                    );
                }
            }
            "create_new_npy" => {
                let arrays: Vec<_> = (1..=4).map(gen).collect();
                ready();
                for k in 0.. {
                    let path = dir.join(format!("c-{k}.npy"));
                    ndnpy::create_new_npy(&path, &arrays[k % 4]).unwrap();
                }
            }
            "npz" => {
                let members: Vec<_> = (1..=4)
                    .map(|g| {
                        (
                            gen(g),
                            Array1::from_elem(g % 7 + 1, g as i32),
                            arr0(g as i64),
                        )
                    })
                    .collect();
                ready();
                for g in 0.. {
                    let (a, b, c) = &members[g % 4];
                    let mut npz = NpzWriter::create(dir.join("a.npz")).unwrap();
                    // Every other archive deflates its 1 MiB member in chunks on all cores.
                    let deflated = ndnpy::npz::NpzWriteOptions::compressed();
                    match g % 2 {
                        0 => npz.add_array("a", a).unwrap(),
                        _ => npz.add_array_with_options("a", a, &deflated).unwrap(),
                    }
                    npz.add_array("b", b).unwrap();
                    npz.add_array("c", c).unwrap();
                    npz.finish().unwrap();
                }
            }
            "mmap" => {
                let arrays: Vec<_> = (1..=4).map(gen).collect();
                ready();
                for g in 0.. {
                    let a = &arrays[g % 4];
                    // SAFETY: only this process touches the file while it is mapped; readers
                    // come after it is killed.
                    let mut map =
                        unsafe { NpyMmapMut::create::<f64, _>(&target, a.len()) }.unwrap();
                    map.view_mut::<f64, Ix1>().unwrap().assign(a);
                    map.flush().unwrap();
                }
            }
            "append_create" | "append_open" | "append_durable" => {
                let opts = WriteOptions::new().durable(role == "append_durable");
                let create =
                    || NpyAppender::<f64>::create_with_options(&target, (0, COLS), false, &opts);
                let mut app = if role == "append_open" {
                    NpyAppender::<f64>::open(&target).unwrap()
                } else {
                    create().unwrap()
                };
                ready();
                loop {
                    let n = app.shape()[0];
                    if n >= MAX_ROWS {
                        app = create().unwrap();
                    } else {
                        app.append(&rows(n, BLOCK)).unwrap();
                    }
                }
            }
            "hold_temp" => {
                // A writer of the named-temporary-file kind, alive: its file is locked.
                let name = std::env::var("NDNPY_KILL_TARGET").unwrap();
                let temp = dir.join(format!(".{name}.ndnpy-tmp-0"));
                let mut f = std::fs::File::create_new(&temp).unwrap();
                use std::os::fd::AsRawFd;
                // SAFETY: flock on a descriptor that `f` keeps open; no memory is involved.
                assert_eq!(
                    unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
                    0
                );
                f.write_all(&[7u8; 1 << 20]).unwrap();
                ready();
                std::thread::sleep(Duration::from_secs(600));
            }
            _ => panic!("unknown role {role}"),
        }
    }

    // ---- The tests. ----

    /// Kill points per writer, and the longest a child writes before it is killed.
    const ROUNDS: usize = 6;
    const MAX_MS: u64 = 60;

    fn write_npy(rng: &mut Rng, role: &str, rounds: usize) {
        let dir = Scratch::new(&format!("kill-{role}"));
        let snaps = dir.path("snaps");
        std::fs::create_dir(&snaps).unwrap();
        let (mut checks, mut left) = (Vec::new(), 0);
        for k in 0..rounds {
            let round = dir.path(&format!("r{k}"));
            std::fs::create_dir(&round).unwrap();
            let target = round.join("a.npy");
            ndnpy::write_npy(&target, &gen(0)).unwrap(); // the old array
            kill_after(spawn(role, &round), rng, MAX_MS);
            left += leftovers_of(&round, "a.npy");
            let snap = snaps.join(format!("{k}.npy"));
            std::fs::copy(&target, &snap).unwrap();
            checks.push(Check {
                kind: "npy",
                path: snap,
                gen: None,
            });
            // The next write replaces the file and removes any temporary file.
            ndnpy::write_npy(&target, &gen(0)).unwrap();
            assert_eq!(entries(&round), ["a.npy"]);
        }
        let seen = numpy_check(&dir.0, &checks);
        eprintln!(
            "  {role}: generations found {seen:?}; temporary files left by a kill (then \
             removed): {left}"
        );
    }

    /// The output a conversion role writes.
    fn conversion_target(role: &str) -> &'static str {
        match role {
            "npy_to_parquet" => "a.parquet",
            "parquet_to_npy" => "a.npy",
            _ => "a.safetensors",
        }
    }

    /// The input of generation `g` a conversion role reads.
    fn conversion_input(role: &str, g: usize) -> String {
        match role {
            "npy_to_parquet" => format!("g{g}.npy"),
            "parquet_to_npy" => format!("g{g}.parquet"),
            _ => format!("g{g}.npz"),
        }
    }

    /// Runs the conversion `role` from `input` to `output`.
    #[cfg_attr(
        not(any(feature = "parquet", feature = "safetensors")),
        allow(unused_variables)
    )]
    fn convert(role: &str, input: &Path, output: &Path) {
        match role {
            #[cfg(feature = "parquet")]
            "npy_to_parquet" => ndnpy::parquet::npy_to_parquet(input, output).unwrap(),
            #[cfg(feature = "parquet")]
            "parquet_to_npy" => ndnpy::parquet::parquet_to_npy(input, output).unwrap(),
            #[cfg(feature = "safetensors")]
            "npz_to_safetensors" => ndnpy::safetensors::npz_to_safetensors(input, output).unwrap(),
            _ => panic!("no conversion {role} in this build"),
        }
    }

    /// A conversion killed while it replaces its output: the output at its name is the old
    /// file or a new complete one, as numpy (pyarrow, safetensors) reads it, and the next
    /// conversion leaves nothing else in the directory.
    #[cfg(any(feature = "parquet", feature = "safetensors"))]
    fn conversion_killed(role: &str, kind: &'static str, max_ms: u64) {
        let mut rng = rng(role);
        let dir = Scratch::new(&format!("kill-{role}"));
        let inputs = dir.path("in");
        std::fs::create_dir(&inputs).unwrap();
        for g in 0..=4 {
            let npy = inputs.join(format!("g{g}.npy"));
            ndnpy::write_npy(&npy, &gen(g)).unwrap();
            match role {
                "parquet_to_npy" => convert(
                    "npy_to_parquet",
                    &npy,
                    &inputs.join(format!("g{g}.parquet")),
                ),
                "npz_to_safetensors" => {
                    let mut npz = NpzWriter::create(inputs.join(format!("g{g}.npz"))).unwrap();
                    npz.add_array("a", &gen(g)).unwrap();
                    npz.finish().unwrap();
                }
                _ => {}
            }
        }
        let snaps = dir.path("snaps");
        std::fs::create_dir(&snaps).unwrap();
        let target_name = conversion_target(role);
        let (mut checks, mut left) = (Vec::new(), 0);
        for k in 0..ROUNDS {
            let round = dir.path(&format!("r{k}"));
            std::fs::create_dir(&round).unwrap();
            let target = round.join(target_name);
            let old = inputs.join(conversion_input(role, 0));
            convert(role, &old, &target); // the old file
            kill_after(spawn(role, &round), &mut rng, max_ms);
            left += leftovers_of(&round, target_name);
            let snap = snaps.join(format!("{k}-{target_name}"));
            std::fs::copy(&target, &snap).unwrap();
            checks.push(Check {
                kind,
                path: snap,
                gen: None,
            });
            // The next conversion replaces the file and removes any temporary file.
            convert(role, &old, &target);
            assert_eq!(entries(&round), [target_name]);
        }
        let seen = numpy_check(&dir.0, &checks);
        eprintln!(
            "  {role}: generations found {seen:?}; temporary files left by a kill (then \
             removed): {left}"
        );
    }

    fn write_npy_killed() {
        write_npy(&mut rng("write_npy"), "write_npy", ROUNDS);
    }

    fn write_npy_durable_killed() {
        write_npy(&mut rng("write_npy_durable"), "write_npy_durable", 3);
    }

    fn write_file_atomically_killed() {
        write_npy(
            &mut rng("write_file_atomically"),
            "write_file_atomically",
            ROUNDS,
        );
    }

    fn create_new_npy_killed() {
        let mut rng = rng("create_new_npy");
        let dir = Scratch::new("kill-create-new");
        let mut checks = Vec::new();
        for k in 0..ROUNDS {
            let round = dir.path(&format!("r{k}"));
            std::fs::create_dir(&round).unwrap();
            kill_after(spawn("create_new_npy", &round), &mut rng, MAX_MS);
            // Unnamed files: nothing but complete files, under their final names.
            let names = entries(&round);
            let mut want: Vec<String> = (0..names.len()).map(|i| format!("c-{i}.npy")).collect();
            want.sort();
            assert_eq!(names, want, "round {k}");
            for i in 0..names.len() {
                checks.push(Check {
                    kind: "npy",
                    path: round.join(format!("c-{i}.npy")),
                    gen: Some(i % 4 + 1),
                });
            }
        }
        numpy_check(&dir.0, &checks);
        eprintln!(
            "  create_new_npy: {} complete files, nothing else",
            checks.len()
        );
    }

    fn npz_writer_killed() {
        let mut rng = rng("npz");
        let dir = Scratch::new("kill-npz");
        let snaps = dir.path("snaps");
        std::fs::create_dir(&snaps).unwrap();
        let (mut checks, mut left) = (Vec::new(), 0);
        for k in 0..ROUNDS {
            let round = dir.path(&format!("r{k}"));
            std::fs::create_dir(&round).unwrap();
            let target = round.join("a.npz");
            kill_after(spawn("npz", &round), &mut rng, MAX_MS);
            left += leftovers_of(&round, "a.npz");
            if target.exists() {
                let snap = snaps.join(format!("{k}.npz"));
                std::fs::copy(&target, &snap).unwrap();
                checks.push(Check {
                    kind: "npz",
                    path: snap,
                    gen: None,
                });
            }
            let mut npz = NpzWriter::create(&target).unwrap();
            npz.add_array("x", &gen(0)).unwrap();
            npz.finish().unwrap();
            assert_eq!(entries(&round), ["a.npz"]);
        }
        let seen = numpy_check(&dir.0, &checks);
        eprintln!(
            "  NpzWriter: generations found {seen:?}, {} rounds killed before the first \
             archive; temporary files left (then removed): {left}",
            ROUNDS - checks.len()
        );
    }

    fn mmap_create_killed() {
        let mut rng = rng("mmap");
        let dir = Scratch::new("kill-mmap");
        let snaps = dir.path("snaps");
        std::fs::create_dir(&snaps).unwrap();
        let (mut checks, mut left) = (Vec::new(), 0);
        for k in 0..ROUNDS {
            let round = dir.path(&format!("r{k}"));
            std::fs::create_dir(&round).unwrap();
            let target = round.join("a.npy");
            kill_after(spawn("mmap", &round), &mut rng, MAX_MS);
            left += leftovers_of(&round, "a.npy");
            if target.exists() {
                let snap = snaps.join(format!("{k}.npy"));
                std::fs::copy(&target, &snap).unwrap();
                checks.push(Check {
                    kind: "mmap",
                    path: snap,
                    gen: None,
                });
            }
            // SAFETY: only this test touches the file while it is mapped.
            drop(unsafe { NpyMmapMut::create::<f64, _>(&target, 10) }.unwrap());
            assert_eq!(entries(&round), ["a.npy"]);
        }
        let seen = numpy_check(&dir.0, &checks);
        eprintln!(
            "  NpyMmapMut::create: generations found {seen:?}; temporary files left (then \
             removed): {left}"
        );
    }

    fn appender_killed() {
        let mut rng = rng("append");
        let dir = Scratch::new("kill-append");
        let snaps = dir.path("snaps");
        std::fs::create_dir(&snaps).unwrap();
        let (mut checks, mut left) = (Vec::new(), 0);
        let roles = ["append_create", "append_open", "append_durable"];
        for k in 0..ROUNDS {
            let role = roles[k % roles.len()];
            let round = dir.path(&format!("r{k}"));
            std::fs::create_dir(&round).unwrap();
            let target = round.join("a.npy");
            if role == "append_open" {
                ndnpy::write_npy(&target, &rows(0, 100)).unwrap();
            }
            kill_after(spawn(role, &round), &mut rng, MAX_MS);
            left += leftovers_of(&round, "a.npy");
            if target.exists() {
                let snap = snaps.join(format!("{k}.npy"));
                std::fs::copy(&target, &snap).unwrap();
                checks.push(Check {
                    kind: "append",
                    path: snap,
                    gen: None,
                });
                // The killed appender's file opens again and grows from its header's shape.
                let mut app = NpyAppender::<f64>::open(&target).unwrap();
                let n = app.shape()[0];
                app.append(&rows(n, BLOCK)).unwrap();
                let a: Array2<f64> = ndnpy::read_npy(&target).unwrap();
                assert_eq!(a, rows(0, n + BLOCK), "round {k}");
            }
            drop(NpyAppender::<f64>::create(&target, (0, COLS), false).unwrap());
            assert_eq!(entries(&round), ["a.npy"]);
        }
        let seen = numpy_check(&dir.0, &checks);
        eprintln!(
            "  NpyAppender: rows found {seen:?}; temporary files left (then removed): {left}"
        );
    }

    /// A temporary file left by a killed writer of the named kind (what a filesystem without
    /// `O_TMPFILE` gives) is kept while its writer lives and removed by the next write of any
    /// path writer to the same target once the writer is dead.
    fn the_next_write_removes_a_dead_writers_temporary_file() {
        let dir = Scratch::new("kill-stale");
        type Writer = fn(&Path);
        let writers: [(&str, Writer); 5] = [
            ("a.npy", |p| ndnpy::write_npy(p, &gen(0)).unwrap()),
            ("b.npy", |p| ndnpy::create_new_npy(p, &gen(0)).unwrap()),
            ("c.npz", |p| {
                let mut npz = NpzWriter::create(p).unwrap();
                npz.add_array("x", &gen(0)).unwrap();
                npz.finish().unwrap();
            }),
            ("d.npy", |p| {
                // SAFETY: only this test touches the file while it is mapped.
                drop(unsafe { NpyMmapMut::create::<f64, _>(p, 10) }.unwrap())
            }),
            ("e.npy", |p| {
                drop(NpyAppender::<f64>::create(p, (0, 2), false).unwrap());
            }),
        ];
        for (name, write) in writers {
            let round = dir.path(name.replace('.', "-").as_str());
            std::fs::create_dir(&round).unwrap();
            let target = round.join(name);
            let temp = format!(".{name}.ndnpy-tmp-0");
            let mut cmd = Command::new(std::env::current_exe().unwrap());
            let mut child = cmd
                .env(ROLE, "hold_temp")
                .env(DIR, &round)
                .env("NDNPY_KILL_TARGET", name)
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let mut line = String::new();
            BufReader::new(child.stdout.as_mut().unwrap())
                .read_line(&mut line)
                .unwrap();
            assert_eq!(line, "ready\n");
            // Alive: its file stays, and the write goes around it.
            if name.starts_with('b') {
                // create_new needs the name free; write it elsewhere first, then for real.
                write(&round.join("other.npy"));
                std::fs::remove_file(round.join("other.npy")).unwrap();
            } else {
                write(&target);
                std::fs::remove_file(&target).unwrap();
            }
            assert_eq!(entries(&round), [temp.as_str()], "{name}: live file kept");
            child.kill().unwrap();
            child.wait().unwrap();
            assert_eq!(
                entries(&round),
                [temp.as_str()],
                "{name}: nothing removes it yet"
            );
            // Dead: the next write to the same target removes it.
            write(&target);
            assert_eq!(entries(&round), [name.to_string()], "{name}: removed");
        }
    }

    /// The generator for one test, from the seed (`NDNPY_KILL_SEED`, else fixed) and the
    /// test's name, so each test's kill points do not depend on which others run.
    fn rng(name: &str) -> Rng {
        let seed = std::env::var("NDNPY_KILL_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0x6e64_6e70_7921u64);
        Rng(name.bytes().fold(seed, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        }))
    }

    pub fn main() {
        if let Ok(role) = std::env::var(ROLE) {
            let dir = PathBuf::from(std::env::var_os(DIR).unwrap());
            child(&role, &dir);
            return;
        }
        #[allow(unused_mut)]
        let mut tests: Vec<(&str, fn())> = vec![
            ("write_npy_killed", write_npy_killed),
            ("write_file_atomically_killed", write_file_atomically_killed),
            ("write_npy_durable_killed", write_npy_durable_killed),
            ("create_new_npy_killed", create_new_npy_killed),
            ("npz_writer_killed", npz_writer_killed),
            ("mmap_create_killed", mmap_create_killed),
            ("appender_killed", appender_killed),
            (
                "the_next_write_removes_a_dead_writers_temporary_file",
                the_next_write_removes_a_dead_writers_temporary_file,
            ),
        ];
        #[cfg(feature = "parquet")]
        {
            tests.push(("npy_to_parquet_killed", || {
                // A conversion takes about 100 ms in a debug build: kills over several.
                conversion_killed("npy_to_parquet", "parquet", 500)
            }));
            tests.push(("parquet_to_npy_killed", || {
                conversion_killed("parquet_to_npy", "npy", 300)
            }));
        }
        #[cfg(feature = "safetensors")]
        tests.push(("npz_to_safetensors_killed", || {
            conversion_killed("npz_to_safetensors", "safetensors", MAX_MS)
        }));
        let args: Vec<String> = std::env::args().skip(1).collect();
        if args.iter().any(|a| a == "--list") {
            for (name, _) in tests {
                println!("{name}: test");
            }
            return;
        }
        let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
        let exact = args.iter().any(|a| a == "--exact");
        let selected: Vec<_> = tests
            .into_iter()
            .filter(|(name, _)| {
                filters.is_empty()
                    || filters.iter().any(|f| {
                        if exact {
                            name == f
                        } else {
                            name.contains(f.as_str())
                        }
                    })
            })
            .collect();
        println!("\nrunning {} tests", selected.len());
        let start = Instant::now();
        let mut failed = Vec::new();
        for (name, test) in selected.iter() {
            let t = Instant::now();
            let ok = std::panic::catch_unwind(test).is_ok();
            println!(
                "test {name} ... {} ({:.1} s)",
                if ok { "ok" } else { "FAILED" },
                t.elapsed().as_secs_f64()
            );
            if !ok {
                failed.push(*name);
            }
        }
        println!(
            "\ntest result: {}. {} passed; {} failed; finished in {:.2}s\n",
            if failed.is_empty() { "ok" } else { "FAILED" },
            selected.len() - failed.len(),
            failed.len(),
            start.elapsed().as_secs_f64()
        );
        if !failed.is_empty() {
            std::process::exit(101);
        }
    }
}
