//! Streaming reader for pcap and pcapng captures of Ethernet frames.
//!
//! Every problem is a [`CaptureError`] naming the file and, past the file
//! header, the 1-based frame number (as Wireshark counts); frames before a
//! broken one are delivered first. Memory stays bounded by the reader's
//! buffer whatever a record claims.

use std::fmt;
use std::fs::File;
use std::io::{BufReader, ErrorKind, Read};
use std::path::{Path, PathBuf};

use pcap_file::pcap::{PcapHeader, PcapReader};
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketOption;
use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption;
use pcap_file::pcapng::{Block, PcapNgReader};
use pcap_file::{DataLink, PcapError, TsResolution};

/// One captured frame.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frame {
    /// 1-based position in the capture.
    pub index: u64,
    /// Capture timestamp in nanoseconds since the epoch.
    pub time_ns: u64,
    /// The captured bytes (no FCS).
    pub data: Vec<u8>,
    /// Length on the wire; more than `data.len()` when the capture cut it.
    pub orig_len: u32,
    /// pcapng `epb_flags` reported a link-layer error (bits 31..24).
    pub mac_error: bool,
}

/// A capture that cannot be read, with where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureError {
    pub path: PathBuf,
    /// The frame that could not be read, when the file header was fine.
    pub frame: Option<u64>,
    pub message: String,
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.frame {
            Some(frame) => write!(f, "{}: frame {frame}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for CaptureError {}

const PCAP_MAGICS: [[u8; 4]; 4] =
    [[0xD4, 0xC3, 0xB2, 0xA1], [0xA1, 0xB2, 0xC3, 0xD4], [0x4D, 0x3C, 0xB2, 0xA1], [0xA1, 0xB2, 0x3C, 0x4D]];
const PCAPNG_MAGIC: [u8; 4] = [0x0A, 0x0D, 0x0D, 0x0A];
/// pcapng `epb_flags` bits 31..24: link-layer errors (CRC, symbol, ...).
const EPB_FLAGS_LINK_ERRORS: u32 = 0xFF00_0000;

/// Any byte stream: a file, or bytes in memory (tests, fuzzing).
type Input = BufReader<Box<dyn Read + Send>>;

enum Format {
    Pcap { reader: PcapReader<Input>, header: PcapHeader },
    PcapNg { reader: Box<PcapNgReader<Input>> },
}

/// Reads frames one at a time into a caller-owned [`Frame`].
pub struct CaptureReader {
    path: PathBuf,
    format: Format,
    frames_read: u64,
    failed: bool,
}

impl CaptureReader {
    pub fn open(path: &Path) -> Result<Self, CaptureError> {
        let file = File::open(path).map_err(|e| CaptureError {
            path: path.to_path_buf(),
            frame: None,
            message: format!("cannot open: {e}"),
        })?;
        Self::from_reader(path, Box::new(file))
    }

    /// Reads a capture from any byte stream; `name` names it in errors.
    pub fn from_reader(name: &Path, input: Box<dyn Read + Send>) -> Result<Self, CaptureError> {
        let at_file = |message: String| CaptureError { path: name.to_path_buf(), frame: None, message };
        let mut input = input;
        let mut magic = [0u8; 4];
        let got = read_up_to(&mut input, &mut magic).map_err(|e| at_file(format!("cannot read: {e}")))?;
        if got < 4 {
            return Err(at_file(format!("not a pcap or pcapng capture: the file has only {got} bytes")));
        }
        // Put the magic back in front of the rest for the format's reader.
        let rejoined: Box<dyn Read + Send> = Box::new(std::io::Cursor::new(magic).chain(input));
        let buffered: Input = BufReader::new(rejoined);
        let format = if PCAP_MAGICS.contains(&magic) {
            let reader =
                PcapReader::new(buffered).map_err(|e| at_file(format!("bad pcap file header: {}", describe(&e))))?;
            let header = reader.header();
            if header.datalink != DataLink::ETHERNET {
                return Err(at_file(format!(
                    "link type {:?} is not Ethernet (LINKTYPE_ETHERNET = 1); metaroce reads Ethernet captures only",
                    header.datalink
                )));
            }
            Format::Pcap { reader, header }
        } else if magic == PCAPNG_MAGIC {
            let reader = PcapNgReader::new(buffered)
                .map_err(|e| at_file(format!("bad pcapng section header: {}", describe(&e))))?;
            Format::PcapNg { reader: Box::new(reader) }
        } else {
            return Err(at_file(format!(
                "not a pcap or pcapng capture (magic {:02x} {:02x} {:02x} {:02x})",
                magic[0], magic[1], magic[2], magic[3]
            )));
        };
        Ok(CaptureReader { path: name.to_path_buf(), format, frames_read: 0, failed: false })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Frames delivered so far.
    pub fn frames_read(&self) -> u64 {
        self.frames_read
    }

    /// Reads the next frame into `frame`; `Ok(false)` at the end. After an
    /// error the reader is finished: every later call returns `Ok(false)`.
    pub fn read_next(&mut self, frame: &mut Frame) -> Result<bool, CaptureError> {
        if self.failed {
            return Ok(false);
        }
        let index = self.frames_read + 1;
        let result = match &mut self.format {
            Format::Pcap { reader, header } => read_pcap(reader, header, frame),
            Format::PcapNg { reader } => read_pcapng(reader, frame),
        };
        match result {
            Ok(true) => {
                self.frames_read = index;
                frame.index = index;
                Ok(true)
            }
            Ok(false) => Ok(false),
            Err(message) => {
                self.failed = true;
                Err(CaptureError { path: self.path.clone(), frame: Some(index), message })
            }
        }
    }
}

impl Iterator for CaptureReader {
    type Item = Result<Frame, CaptureError>;
    fn next(&mut self) -> Option<Self::Item> {
        let mut frame = Frame::default();
        match self.read_next(&mut frame) {
            Ok(true) => Some(Ok(frame)),
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

fn read_up_to(input: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

fn describe(e: &PcapError) -> String {
    match e {
        PcapError::IncompleteBuffer => "the file ends inside it".into(),
        PcapError::IoError(io) if io.kind() == ErrorKind::UnexpectedEof => {
            "the file ends inside it (or it claims more than the reader's 8 MB buffer)".into()
        }
        other => other.to_string(),
    }
}

fn read_pcap(reader: &mut PcapReader<Input>, header: &PcapHeader, frame: &mut Frame) -> Result<bool, String> {
    let raw = match reader.next_raw_packet() {
        None => return Ok(false),
        Some(Ok(raw)) => raw,
        Some(Err(e)) => return Err(format!("bad record: {}", describe(&e))),
    };
    // Validated here rather than by pcap-file, which also refuses the
    // ordinary orig_len > snaplen of a capture cut by its snap length.
    if header.snaplen != 0 && raw.incl_len > header.snaplen {
        return Err(format!("caplen {} is above the snaplen {}", raw.incl_len, header.snaplen));
    }
    if raw.incl_len > raw.orig_len {
        return Err(format!("caplen {} is above the original length {}", raw.incl_len, raw.orig_len));
    }
    let frac_ns = match header.ts_resolution {
        TsResolution::MicroSecond if raw.ts_frac < 1_000_000 => raw.ts_frac as u64 * 1000,
        TsResolution::NanoSecond if raw.ts_frac < 1_000_000_000 => raw.ts_frac as u64,
        _ => return Err(format!("timestamp fraction {} out of range", raw.ts_frac)),
    };
    frame.time_ns = raw.ts_sec as u64 * 1_000_000_000 + frac_ns;
    frame.data.clear();
    frame.data.extend_from_slice(&raw.data);
    frame.orig_len = raw.orig_len;
    frame.mac_error = false;
    Ok(true)
}

fn read_pcapng(reader: &mut PcapNgReader<Input>, frame: &mut Frame) -> Result<bool, String> {
    loop {
        let block = match reader.next_block() {
            None => return Ok(false),
            Some(Ok(block)) => block,
            Some(Err(e)) => return Err(format!("bad pcapng block: {}", describe(&e))),
        };
        // Copy the bytes out first: the block borrows the reader.
        let (interface_id, raw_time, orig_len, flags, data) = match &block {
            Block::EnhancedPacket(epb) => {
                let flags = epb
                    .options
                    .iter()
                    .find_map(|o| match o {
                        EnhancedPacketOption::Flags(f) => Some(*f),
                        _ => None,
                    })
                    .unwrap_or(0);
                (epb.interface_id, epb.timestamp.as_nanos() as u64, epb.original_len, flags, &epb.data)
            }
            Block::SimplePacket(spb) => (0, 0, spb.original_len, 0, &spb.data),
            Block::Packet(pb) => (pb.interface_id as u32, pb.timestamp, pb.original_len, 0, &pb.data),
            _ => continue,
        };
        if data.len() as u64 > orig_len as u64 {
            return Err(format!("caplen {} is above the original length {orig_len}", data.len()));
        }
        frame.data.clear();
        frame.data.extend_from_slice(data);
        drop(block);
        let interface = reader
            .interfaces()
            .get(interface_id as usize)
            .ok_or_else(|| format!("refers to interface {interface_id}, which no interface block describes"))?;
        if interface.linktype != DataLink::ETHERNET {
            return Err(format!(
                "interface {interface_id} has link type {:?}, not Ethernet (LINKTYPE_ETHERNET = 1)",
                interface.linktype
            ));
        }
        let ticks_per_second = interface
            .options
            .iter()
            .find_map(|o| match o {
                InterfaceDescriptionOption::IfTsResol(r) => Some(*r),
                _ => None,
            })
            .map_or(Ok(1_000_000u64), ticks_per_second)?;
        // pcap-file returns the raw 64-bit tick count as "nanoseconds".
        frame.time_ns = (raw_time as u128 * 1_000_000_000 / ticks_per_second as u128) as u64;
        frame.orig_len = orig_len;
        frame.mac_error = flags & EPB_FLAGS_LINK_ERRORS != 0;
        return Ok(true);
    }
}

/// `if_tsresol`: 10^-n seconds, or 2^-n with the top bit set.
fn ticks_per_second(tsresol: u8) -> Result<u64, String> {
    let exponent = (tsresol & 0x7F) as u32;
    let ticks = if tsresol & 0x80 == 0 { 10u64.checked_pow(exponent) } else { 1u64.checked_shl(exponent) };
    match ticks {
        Some(t) if t > 0 && t <= 1_000_000_000_000 => Ok(t),
        _ => Err(format!("if_tsresol {tsresol:#04x} is outside what metaroce reads (up to picoseconds)")),
    }
}
