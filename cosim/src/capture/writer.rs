//! Writing captures: classic pcap with ns timestamps, or pcapng with MAC
//! errors in `epb_flags`, from frames held in memory.

use std::borrow::Cow;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::time::Duration;

use anyhow::bail;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{InterfaceDescriptionBlock, InterfaceDescriptionOption};
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::{DataLink, Endianness, TsResolution};

/// One frame of a generated capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenFrame {
    pub data: Vec<u8>,
    /// Written as pcapng `epb_flags` CRC error (pcapng captures only).
    pub mac_error: bool,
    /// Capture time, ns since the epoch; `None`: the capture's default
    /// spacing (frame *i* at `START_NS + i` µs).
    pub time_ns: Option<u64>,
}

impl GenFrame {
    pub fn ok(data: Vec<u8>) -> Self {
        GenFrame { data, mac_error: false, time_ns: None }
    }
    pub fn at(time_ns: u64, data: Vec<u8>) -> Self {
        GenFrame { data, mac_error: false, time_ns: Some(time_ns) }
    }
}

/// First timestamp of every generated capture and the spacing of frames.
pub const START_NS: u64 = 1_700_000_000_000_000_000;
const FRAME_SPACING_NS: u64 = 1_000;

/// Writes frames as classic pcap (ns timestamps) or, for `.pcapng` names,
/// as pcapng with `if_tsresol` = 9 and `epb_flags` for MAC errors.
pub fn write_capture(path: &Path, frames: &[GenFrame]) -> anyhow::Result<()> {
    let file = BufWriter::new(File::create(path)?);
    let time = |i: usize| Duration::from_nanos(frames[i].time_ns.unwrap_or(START_NS + i as u64 * FRAME_SPACING_NS));
    if path.extension().is_some_and(|e| e == "pcapng") {
        let mut writer = PcapNgWriter::with_endianness(file, Endianness::Little)?;
        let mut interface = InterfaceDescriptionBlock::new(DataLink::ETHERNET, 65535);
        interface.options.push(InterfaceDescriptionOption::IfTsResol(9));
        writer.write_pcapng_block(interface)?;
        for (i, frame) in frames.iter().enumerate() {
            let mut options = Vec::new();
            if frame.mac_error {
                options.push(EnhancedPacketOption::Flags(0x0100_0000)); // bit 24: CRC error
            }
            writer.write_pcapng_block(EnhancedPacketBlock {
                interface_id: 0,
                timestamp: time(i),
                original_len: frame.data.len() as u32,
                data: Cow::Borrowed(&frame.data),
                options,
            })?;
        }
        writer.into_inner().into_inner().map_err(|e| e.into_error())?;
    } else {
        if frames.iter().any(|f| f.mac_error) {
            bail!("classic pcap cannot carry MAC errors; name the capture .pcapng");
        }
        let header = PcapHeader {
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::Little,
            snaplen: 65535,
            ..PcapHeader::default()
        };
        let mut writer = PcapWriter::with_header(file, header)?;
        for (i, frame) in frames.iter().enumerate() {
            writer.write_packet(&PcapPacket::new(time(i), frame.data.len() as u32, &frame.data))?;
        }
        writer.into_writer().into_inner().map_err(|e| e.into_error())?;
    }
    Ok(())
}
