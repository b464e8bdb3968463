//! Streaming reader for pcap and pcapng captures of Ethernet frames.
//!
//! Every problem is a [`CaptureError`] naming the file and, past the file
//! header, the 1-based frame number (as Wireshark counts); frames before a
//! broken one are delivered first. Memory stays bounded by the reader's
//! buffer whatever a record claims.

use std::fmt;
use std::fs::File;
use std::io::{Cursor, ErrorKind, Read};
use std::path::{Path, PathBuf};

use pcap_file::pcap::{PcapHeader, PcapParser, RawPcapPacket};
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketOption;
use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption;
use pcap_file::pcapng::{Block, PcapNgParser};
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

/// The largest record (header included) the reader holds: pcap-file's own
/// fixed buffer size, so what it read stays readable and what it refused is
/// refused alike.
const MAX_BUFFER: usize = 8_000_000;
/// The first buffer of an input of unknown length; it doubles while a
/// record does not fit.
const STREAM_BUFFER: usize = 64 * 1024;
/// The smallest first buffer, however short the input.
const MIN_BUFFER: usize = 4 * 1024;

enum Format {
    Pcap(PcapParser),
    PcapNg(Box<PcapNgParser>),
}

/// Reads frames one at a time into a caller-owned [`Frame`].
pub struct CaptureReader {
    path: PathBuf,
    input: RecordBuffer,
    format: Format,
    frames_read: u64,
    failed: bool,
}

impl CaptureReader {
    pub fn open(path: &Path) -> Result<Self, CaptureError> {
        let error = |e: std::io::Error| CaptureError {
            path: path.to_path_buf(),
            frame: None,
            message: format!("cannot open: {e}"),
        };
        let file = File::open(path).map_err(error)?;
        let len = file.metadata().map_err(error)?.len();
        Self::with_buffer(path, RecordBuffer::new(Box::new(file), len.try_into().unwrap_or(MAX_BUFFER)))
    }

    /// Reads a capture held in memory (tests, fuzzing); `name` names it in errors.
    pub fn from_bytes(name: &Path, bytes: Vec<u8>) -> Result<Self, CaptureError> {
        let len = bytes.len();
        Self::with_buffer(name, RecordBuffer::new(Box::new(Cursor::new(bytes)), len))
    }

    /// Reads a capture from any byte stream; `name` names it in errors.
    pub fn from_reader(name: &Path, input: Box<dyn Read + Send>) -> Result<Self, CaptureError> {
        Self::with_buffer(name, RecordBuffer::new(input, STREAM_BUFFER))
    }

    fn with_buffer(name: &Path, mut input: RecordBuffer) -> Result<Self, CaptureError> {
        let at_file = |message: String| CaptureError { path: name.to_path_buf(), frame: None, message };
        let magic = input.peek(4).map_err(|e| at_file(format!("cannot read: {e}")))?;
        let Ok(magic) = <[u8; 4]>::try_from(magic) else {
            return Err(at_file(format!("not a pcap or pcapng capture: the file has only {} bytes", magic.len())));
        };
        let format = if PCAP_MAGICS.contains(&magic) {
            let parser = input
                .parse(|src| PcapParser::new(src).map(|(rest, parser)| (rest.len(), parser)))
                .map_err(|e| at_file(format!("bad pcap file header: {}", describe(&e))))?;
            let datalink = parser.header().datalink;
            if datalink != DataLink::ETHERNET {
                return Err(at_file(format!(
                    "link type {datalink:?} is not Ethernet (LINKTYPE_ETHERNET = 1); metaroce reads Ethernet captures only"
                )));
            }
            Format::Pcap(parser)
        } else if magic == PCAPNG_MAGIC {
            let parser = input
                .parse(|src| PcapNgParser::new(src).map(|(rest, parser)| (rest.len(), parser)))
                .map_err(|e| at_file(format!("bad pcapng section header: {}", describe(&e))))?;
            Format::PcapNg(Box::new(parser))
        } else {
            return Err(at_file(format!(
                "not a pcap or pcapng capture (magic {:02x} {:02x} {:02x} {:02x})",
                magic[0], magic[1], magic[2], magic[3]
            )));
        };
        Ok(CaptureReader { path: name.to_path_buf(), input, format, frames_read: 0, failed: false })
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
            Format::Pcap(parser) => read_pcap(&mut self.input, parser, frame),
            Format::PcapNg(parser) => read_pcapng(&mut self.input, parser, frame),
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

/// The input and the bytes read ahead of the parser: sized to the input
/// (so a short capture costs a short buffer), grown while one record does
/// not fit, up to [`MAX_BUFFER`].
struct RecordBuffer {
    input: Box<dyn Read + Send>,
    buf: Vec<u8>,
    /// The unparsed bytes are `buf[start..end]`.
    start: usize,
    end: usize,
}

impl RecordBuffer {
    fn new(input: Box<dyn Read + Send>, input_len: usize) -> Self {
        RecordBuffer { input, buf: vec![0; input_len.clamp(MIN_BUFFER, MAX_BUFFER)], start: 0, end: 0 }
    }

    /// Up to `n` unparsed bytes; fewer only at the end of the input.
    fn peek(&mut self, n: usize) -> std::io::Result<&[u8]> {
        while self.end - self.start < n && self.fill()? > 0 {}
        let available = (self.end - self.start).min(n);
        Ok(&self.buf[self.start..self.start + available])
    }

    /// Whether unparsed bytes are left, reading more when none is.
    fn has_data_left(&mut self) -> std::io::Result<bool> {
        Ok(!self.peek(1)?.is_empty())
    }

    /// Runs `parse` on the unparsed bytes, reading more while it finds them
    /// incomplete. `parse` returns how many bytes it left, and a value that
    /// owns its data (it cannot borrow the buffer).
    fn parse<T>(&mut self, mut parse: impl FnMut(&[u8]) -> Result<(usize, T), PcapError>) -> Result<T, PcapError> {
        loop {
            match parse(&self.buf[self.start..self.end]) {
                Ok((left, value)) => {
                    self.start = self.end - left;
                    return Ok(value);
                }
                Err(PcapError::IncompleteBuffer) => {
                    if self.fill().map_err(PcapError::IoError)? == 0 {
                        return Err(PcapError::IoError(ErrorKind::UnexpectedEof.into()));
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Moves the unparsed bytes to the front and reads behind them,
    /// doubling the buffer when they fill it. `Ok(0)` at the end of the
    /// input, or when they fill a buffer of [`MAX_BUFFER`] bytes.
    fn fill(&mut self) -> std::io::Result<usize> {
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        if self.end == self.buf.len() {
            if self.buf.len() >= MAX_BUFFER {
                return Ok(0);
            }
            self.buf.resize((self.buf.len() * 2).min(MAX_BUFFER), 0);
        }
        loop {
            match self.input.read(&mut self.buf[self.end..]) {
                Ok(n) => {
                    self.end += n;
                    return Ok(n);
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
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

fn read_pcap(input: &mut RecordBuffer, parser: &PcapParser, frame: &mut Frame) -> Result<bool, String> {
    let bad_record = |e: PcapError| format!("bad record: {}", describe(&e));
    if !input.has_data_left().map_err(|e| bad_record(PcapError::IoError(e)))? {
        return Ok(false);
    }
    let header = parser.header();
    input
        .parse(|src| {
            let (rest, raw) = parser.next_raw_packet(src)?;
            Ok((rest.len(), pcap_frame(&raw, &header, frame)))
        })
        .map_err(bad_record)?
        .map(|()| true)
}

/// Checks a pcap record and copies it into `frame`.
fn pcap_frame(raw: &RawPcapPacket, header: &PcapHeader, frame: &mut Frame) -> Result<(), String> {
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
    Ok(())
}

/// What a pcapng packet block says beside its bytes.
struct PacketBlock {
    interface_id: u32,
    raw_time: u64,
    orig_len: u32,
    flags: u32,
}

fn read_pcapng(input: &mut RecordBuffer, parser: &mut PcapNgParser, frame: &mut Frame) -> Result<bool, String> {
    let bad_block = |e: PcapError| format!("bad pcapng block: {}", describe(&e));
    loop {
        if !input.has_data_left().map_err(|e| bad_block(PcapError::IoError(e)))? {
            return Ok(false);
        }
        let packet = input
            .parse(|src| {
                let (rest, block) = parser.next_block(src)?;
                Ok((rest.len(), pcapng_packet(&block, frame)))
            })
            .map_err(bad_block)?;
        let Some(PacketBlock { interface_id, raw_time, orig_len, flags }) = packet? else {
            continue;
        };
        let interface = parser
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

/// A packet block's fields, its bytes copied into `frame.data`; `None` for
/// the other blocks.
fn pcapng_packet(block: &Block, frame: &mut Frame) -> Result<Option<PacketBlock>, String> {
    let (interface_id, raw_time, orig_len, flags, data) = match block {
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
        _ => return Ok(None),
    };
    if data.len() as u64 > orig_len as u64 {
        return Err(format!("caplen {} is above the original length {orig_len}", data.len()));
    }
    frame.data.clear();
    frame.data.extend_from_slice(data);
    Ok(Some(PacketBlock { interface_id, raw_time, orig_len, flags }))
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
