//! Waveforms: the RTL traces FST natively; VCD is written from that FST
//! (`fst-reader`), so one traced build serves both formats.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;

use fst_reader::{FstFilter, FstHierarchyEntry, FstReader, FstSignalValue};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum WaveFormat {
    /// GTKWave's compressed format (default): what GTKWave and Surfer open fastest.
    #[default]
    Fst,
    /// Plain-text Value Change Dump.
    Vcd,
}

impl WaveFormat {
    pub fn extension(self) -> &'static str {
        match self {
            WaveFormat::Fst => "fst",
            WaveFormat::Vcd => "vcd",
        }
    }
}

/// VCD identifier code for signal `index`: base-94 over printable ASCII.
fn vcd_id(mut index: usize) -> String {
    let mut id = String::new();
    loop {
        id.push((b'!' + (index % 94) as u8) as char);
        index /= 94;
        if index == 0 {
            return id;
        }
    }
}

fn vcd_timescale(exponent: i8) -> String {
    let (unit, base) = match exponent {
        e if e <= -15 => ("fs", -15),
        e if e <= -12 => ("ps", -12),
        e if e <= -9 => ("ns", -9),
        e if e <= -6 => ("us", -6),
        e if e <= -3 => ("ms", -3),
        _ => ("s", 0),
    };
    format!("{}{unit}", 10u64.pow((exponent - base).clamp(0, 2) as u32))
}

/// Writes the contents of the FST file `fst` as a VCD file `vcd`.
pub fn fst_to_vcd(fst: &Path, vcd: &Path) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", fst.display());
    let file = File::open(fst).map_err(|e| err(&e))?;
    let mut reader = FstReader::open(BufReader::new(file)).map_err(|e| err(&format!("{e:?}")))?;
    let header = reader.get_header();
    let out_file = File::create(vcd).map_err(|e| format!("{}: {e}", vcd.display()))?;
    let mut out = BufWriter::new(out_file);
    let mut text = format!(
        "$date {} $end\n$version metaroce (from {}) $end\n$timescale {} $end\n",
        header.date.trim(),
        header.version.trim(),
        vcd_timescale(header.timescale_exponent)
    );
    let mut widths: HashMap<usize, u32> = HashMap::new();
    reader
        .read_hierarchy(|entry| match entry {
            FstHierarchyEntry::Scope { name, .. } => text += &format!("$scope module {name} $end\n"),
            FstHierarchyEntry::UpScope => text += "$upscope $end\n",
            FstHierarchyEntry::Var { name, length, handle, .. } => {
                let index = handle.get_index();
                widths.insert(index, length);
                let name = name.split(' ').next().unwrap_or(&name).to_string();
                text += &format!("$var wire {length} {} {name} $end\n", vcd_id(index));
            }
            _ => {}
        })
        .map_err(|e| err(&format!("{e:?}")))?;
    text += "$enddefinitions $end\n";
    let mut changes: Vec<(u64, usize, String)> = Vec::new();
    reader
        .read_signals(&FstFilter::all(), |time, handle, value| -> Result<(), ()> {
            let index = handle.get_index();
            let value = match value {
                FstSignalValue::String(bits) => {
                    let bits = String::from_utf8_lossy(bits);
                    if widths.get(&index) == Some(&1) {
                        bits.into_owned()
                    } else {
                        format!("b{bits} ")
                    }
                }
                FstSignalValue::Real(r) => format!("r{r} "),
            };
            changes.push((time, index, value));
            Ok(())
        })
        .map_err(|e| err(&format!("{e:?}")))?;
    changes.sort_by_key(|&(time, index, _)| (time, index));
    let io = |e: std::io::Error| format!("{}: {e}", vcd.display());
    out.write_all(text.as_bytes()).map_err(io)?;
    let mut now = None;
    for (time, index, value) in changes {
        if now != Some(time) {
            writeln!(out, "#{time}").map_err(io)?;
            now = Some(time);
        }
        writeln!(out, "{value}{}", vcd_id(index)).map_err(io)?;
    }
    out.flush().map_err(io)
}
