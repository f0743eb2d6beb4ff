//! Every door to one read: the same array through `read_npy(path)`, `read_npy(File)`,
//! `read_npy(BufReader<File>)`, `read_npy(&bytes[..])` (the file already in memory) and
//! `NpzReader::by_name` of a stored `.npz` member, as users call them.

use crate::{median_secs, Goal, Imp, Res};
use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use std::time::{Duration, Instant};

/// The row names of one read's doors, the path first.
#[derive(Clone, Copy)]
pub(crate) struct DoorNames {
    pub path: &'static str,
    /// The path read kept on one thread (`ReadOptions::threads(1)`), beside the default
    /// path read that every other door is compared with.
    pub path1: &'static str,
    pub file: &'static str,
    pub buf: &'static str,
    pub bytes: &'static str,
    pub member: &'static str,
}

impl DoorNames {
    /// The doors that read through one `Read` (all but the path rows).
    pub(crate) fn readers(&self) -> [&'static str; 4] {
        [self.file, self.buf, self.bytes, self.member]
    }
}

/// The doors of a plain `ndnpy` read (the row named `ndnpy` is the path).
pub(crate) const NDNPY_DOORS: DoorNames = DoorNames {
    path: "ndnpy",
    path1: "ndnpy, one thread",
    file: "ndnpy File",
    buf: "ndnpy BufReader<File>",
    bytes: "ndnpy &[u8]",
    member: "ndnpy .npz member",
};

/// The six rows of one read of type `T`: `path` and `npz` (member `a`, stored) hold the same
/// array, `bytes` is the `.npy` file's content. `check(row, &value)` verifies a result.
pub(crate) fn door_imps<'a, T: ndnpy::ReadNpyExt + 'a>(
    names: DoorNames,
    path: &'a Path,
    npz: &'a Path,
    bytes: &'a [u8],
    member: fn(&Path) -> Res<T>,
    check: impl Fn(&'static str, &T) -> Res<()> + Copy + 'a,
) -> Vec<Imp<'a>> {
    fn timed<T>(
        name: &'static str,
        read: impl FnOnce() -> Res<T>,
        check_it: bool,
        check: impl Fn(&'static str, &T) -> Res<()>,
    ) -> Res<Duration> {
        let t = Instant::now();
        let a = read()?;
        let d = t.elapsed();
        if check_it {
            check(name, &a)?;
        }
        drop(a);
        Ok(d)
    }
    vec![
        Imp::new(names.path, move |c| {
            timed(names.path, || Ok(ndnpy::read_npy::<_, T>(path)?), c, check)
        }),
        Imp::new(names.path1, move |c| {
            let one = ndnpy::ReadOptions::new().threads(1);
            timed(names.path1, || Ok(one.read_npy::<_, T>(path)?), c, check)
        }),
        Imp::new(names.file, move |c| {
            timed(names.file, || Ok(T::read_npy(File::open(path)?)?), c, check)
        }),
        Imp::new(names.buf, move |c| {
            timed(
                names.buf,
                || Ok(T::read_npy(BufReader::new(File::open(path)?))?),
                c,
                check,
            )
        }),
        Imp::new(names.bytes, move |c| {
            timed(names.bytes, || Ok(T::read_npy(bytes)?), c, check)
        }),
        Imp::new(names.member, move |c| {
            timed(names.member, || member(npz), c, check)
        }),
    ]
}

/// The goals of a read's doors: every door that reads through one `Read` within `max` of row
/// `other`'s median, for each `(other, max)`.
pub(crate) fn door_goals(
    names: DoorNames,
    rows: &[(&'static str, Vec<Duration>)],
    against: &[(&'static str, f64)],
) -> Vec<Goal> {
    ratio_goals(rows, &names.readers(), against)
}

/// Goals that each row of `which` is within `max` of row `other`'s median, for each
/// `(other, max)` (rows missing from `rows` are skipped).
pub(crate) fn ratio_goals(
    rows: &[(&'static str, Vec<Duration>)],
    which: &[&'static str],
    against: &[(&'static str, f64)],
) -> Vec<Goal> {
    let med = |name: &str| rows.iter().find(|r| r.0 == name).map(|r| median_secs(&r.1));
    let mut goals = Vec::new();
    for &row in which {
        let Some(t) = med(row) else { continue };
        for &(other, max) in against {
            let Some(o) = med(other).filter(|_| other != row) else {
                continue;
            };
            let r = t / o;
            goals.push(Goal {
                text: format!("{row} ÷ {other} = {r:.2}x (target ≤ {max:.2}x)"),
                met: r <= max,
            });
        }
    }
    goals
}
