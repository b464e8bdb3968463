//! Regression stimuli: the generated captures under `pcaps/`, written by
//! `metaroce gen`, and the search for captures on disk.
//!
//! Every frame is built from the golden model's header structs
//! (`metaroce_golden::wire`) with field values from a fixed-seed sequence,
//! so `gen` writes the same bytes on every run. Error captures start from a
//! valid frame and break exactly one thing, keeping every other length and
//! checksum right so that the intended error class is the one that fires.

use std::borrow::Cow;
use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::addresses::{host_ipv4, host_ipv6, host_mac};
use crate::dice::seq_value;
use anyhow::{bail, Context};
use metaroce_golden::cn_event::NicConfig;
use metaroce_golden::frame::{pad_to_minimum, UdpFrameRepr, MIN_FRAME_LEN};
use metaroce_golden::opcode;
use metaroce_golden::wire::{
    ethertype, ip_proto, AethRepr, AtomicAckEthRepr, AtomicEthRepr, BthRepr, DethRepr, EthernetRepr, IethRepr,
    ImmDtRepr, IpRepr, Ipv4Packet, Ipv4Repr, Ipv6Repr, RethRepr, UdpRepr, VlanRepr, ROCE_V2_UDP_PORT,
};
use metaroce_golden::ParseError;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{InterfaceDescriptionBlock, InterfaceDescriptionOption};
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::{DataLink, Endianness, TsResolution};

/// Captures `metaroce cosim` and the tests pick up.
pub const CAPTURE_EXTENSIONS: [&str; 2] = ["pcap", "pcapng"];

/// The captures named by `paths`: files as given, directories searched
/// recursively; sorted, so runs and shards are deterministic.
pub fn find_captures(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for path in paths {
        let meta = fs::metadata(path).with_context(|| format!("{}", path.display()))?;
        if meta.is_dir() {
            let mut dirs = vec![path.clone()];
            while let Some(dir) = dirs.pop() {
                for entry in fs::read_dir(&dir).with_context(|| format!("{}", dir.display()))? {
                    let entry = entry.with_context(|| format!("{}", dir.display()))?;
                    let p = entry.path();
                    if p.is_dir() {
                        dirs.push(p);
                    } else if is_capture_name(&p) {
                        found.push(p);
                    }
                }
            }
        } else {
            found.push(path.clone());
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

fn is_capture_name(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| CAPTURE_EXTENSIONS.contains(&e))
}

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

/// A generated capture and what every frame of it must classify as.
#[derive(Debug, Clone)]
pub struct Capture {
    /// Path under `pcaps/`; `.pcapng` files are written as pcapng.
    pub name: String,
    pub frames: Vec<GenFrame>,
    /// For the error captures: the class each frame must get.
    pub expect_error: Option<ParseError>,
    /// The NIC of a congestion-notification capture, written beside it
    /// as `NAME.nic.json`.
    pub nic: Option<NicConfig>,
}

/// First timestamp of every generated capture and the spacing of frames.
pub(crate) const START_NS: u64 = 1_700_000_000_000_000_000;
const FRAME_SPACING_NS: u64 = 1_000;

/// Writes every generated capture under `dir`; returns paths and frame counts.
pub fn write_all(dir: &Path) -> anyhow::Result<Vec<(PathBuf, usize)>> {
    let mut written = Vec::new();
    for capture in all_captures() {
        let path = dir.join(&capture.name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).with_context(|| format!("{}", parent.display()))?;
        }
        write_capture(&path, &capture.frames).with_context(|| format!("{}", path.display()))?;
        if let Some(nic) = &capture.nic {
            let nic_path = crate::cn::nic_file_of(&path);
            let json = serde_json::to_string_pretty(nic)? + "\n";
            fs::write(&nic_path, json).with_context(|| format!("{}", nic_path.display()))?;
            written.push((nic_path, 0));
        }
        written.push((path, capture.frames.len()));
    }
    Ok(written)
}

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

/// Field values from a sequence number and a salt.
fn value(seq: u32, salt: u32) -> u64 {
    seq_value(seq, salt)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum L3 {
    V4 { options: Vec<u8> },
    V6 { flow_label: u32 },
}

/// A RoCEv2 frame (or, with another protocol or port, a plain IP/UDP one)
/// before it is laid out; [`RoceFrame::build`] fills every length, the
/// IPv4 checksum and the ICRC.
#[derive(Debug, Clone)]
pub struct RoceFrame {
    /// (TPID, PCP, VID), outermost first.
    pub vlans: Vec<(u16, u8, u16)>,
    pub l3: L3,
    pub dscp: u8,
    pub ecn: u8,
    pub ip_proto: u8,
    pub udp_sport: u16,
    pub udp_dport: u16,
    pub bth: BthRepr,
    pub ext: Vec<u8>,
    pub payload: Vec<u8>,
    /// Keep only this many bytes from the BTH on (ICRC included), with IP
    /// and UDP lengths saying so: a transport that ends early.
    pub transport_len: Option<usize>,
    pub corrupt_icrc: bool,
    /// Source and destination host numbers (addresses: `host_mac` etc.).
    pub hosts: (u8, u8),
}

impl RoceFrame {
    /// A valid RoCEv2/IPv4 frame with opcode `op`, no payload, and header
    /// fields drawn from sequence number `seq`.
    pub fn new(op: u8, seq: u32) -> Self {
        let v = |salt| value(seq, salt);
        RoceFrame {
            vlans: Vec::new(),
            l3: L3::V4 { options: Vec::new() },
            dscp: 26,
            ecn: 2,
            ip_proto: ip_proto::UDP,
            udp_sport: 0xC000 | (v(1) as u16 & 0x3FFF),
            udp_dport: ROCE_V2_UDP_PORT,
            bth: BthRepr {
                opcode: op,
                se: v(2) & 1 == 1,
                mig_req: true,
                pkey: 0xFFFF,
                dest_qp: (v(3) & 0xFF_FFFF) as u32,
                ack_req: v(4) & 1 == 1,
                psn: (v(5) & 0xFF_FFFF) as u32,
                ..BthRepr::default()
            },
            ext: ext_headers_for(op, seq),
            payload: Vec::new(),
            transport_len: None,
            corrupt_icrc: false,
            hosts: (1, 2),
        }
    }

    /// Sets a payload of `len` bytes and the PadCnt that 4-aligns it.
    pub fn with_payload(mut self, len: usize, seq: u32) -> Self {
        self.payload = (0..len).map(|i| value(seq, 100 + i as u32) as u8).collect();
        self.bth.pad_cnt = ((4 - len % 4) % 4) as u8;
        self
    }

    pub fn ipv6(mut self, flow_label: u32) -> Self {
        self.l3 = L3::V6 { flow_label };
        self
    }

    pub fn tagged(mut self, tags: &[(u16, u8, u16)]) -> Self {
        self.vlans = tags.to_vec();
        self
    }

    /// Offset of the IP header in the built frame.
    pub fn l3_offset(&self) -> usize {
        EthernetRepr::LEN + VlanRepr::LEN * self.vlans.len()
    }

    pub fn ip_header_len(&self) -> usize {
        match &self.l3 {
            L3::V4 { options } => Ipv4Repr::LEN + options.len(),
            L3::V6 { .. } => Ipv6Repr::LEN,
        }
    }

    pub fn build(&self) -> Vec<u8> {
        let mut transport = self.bth.to_bytes().to_vec();
        transport.extend_from_slice(&self.ext);
        transport.extend_from_slice(&self.payload);
        transport.resize(transport.len() + usize::from(self.bth.pad_cnt), 0);
        let with_icrc = transport.len() + 4;
        let transport_len = self.transport_len.unwrap_or(with_icrc);

        let ip = self.ip_repr();
        let vlans = self.vlan_reprs(ip.ethertype());
        let (src, dst) = self.hosts;
        let headers = UdpFrameRepr {
            ethernet: EthernetRepr {
                dst_addr: host_mac(dst),
                src_addr: host_mac(src),
                ethertype: self.vlans.first().map_or(ip.ethertype(), |t| t.0),
            },
            vlans: &vlans,
            ip,
            udp: UdpRepr { src_port: self.udp_sport, dst_port: self.udp_dport, ..UdpRepr::default() },
        };
        let mut frame = headers.emit(transport_len);
        if self.transport_len.is_some() {
            transport.resize(with_icrc, 0xA5);
            transport.truncate(transport_len);
            frame.extend(transport);
        } else {
            frame.extend(transport);
            headers.append_icrc(&mut frame);
            if self.corrupt_icrc {
                // Bit 8 of the value: the ICRC goes least significant byte first.
                let second = frame.len() - 3;
                frame[second] ^= 0x01;
            }
        }
        pad_to_minimum(&mut frame);
        frame
    }

    /// The tags, each naming what follows it: the next tag's TPID, or `ip_type`.
    fn vlan_reprs(&self, ip_type: u16) -> Vec<VlanRepr> {
        let next = |i: usize| self.vlans.get(i + 1).map_or(ip_type, |t| t.0);
        self.vlans
            .iter()
            .enumerate()
            .map(|(i, &(_, pcp, vid))| VlanRepr { pcp, dei: false, vid, ethertype: next(i) })
            .collect()
    }

    fn ip_repr(&self) -> IpRepr<'_> {
        match &self.l3 {
            L3::V4 { options } => IpRepr::V4(Ipv4Repr {
                dscp: self.dscp,
                ecn: self.ecn,
                ident: (value(self.bth.psn, 7) & 0xFFFF) as u16,
                dont_frag: true,
                ttl: 64,
                protocol: self.ip_proto,
                src_addr: host_ipv4(self.hosts.0),
                dst_addr: host_ipv4(self.hosts.1),
                options,
                ..Ipv4Repr::default()
            }),
            L3::V6 { flow_label } => IpRepr::V6(Ipv6Repr {
                dscp: self.dscp,
                ecn: self.ecn,
                flow_label: *flow_label,
                next_header: self.ip_proto,
                hop_limit: 64,
                src_addr: host_ipv6(self.hosts.0),
                dst_addr: host_ipv6(self.hosts.1),
                ..Ipv6Repr::default()
            }),
        }
    }
}

/// Recomputes the IPv4 header checksum of the header at `l3` in `frame`.
pub fn fix_ipv4_checksum(frame: &mut [u8], l3: usize) {
    Ipv4Packet::new_unchecked(&mut frame[l3..]).fill_checksum();
}

/// The extension headers opcode `op` carries, in wire order, with values
/// from `seq`.
pub fn ext_headers_for(op: u8, seq: u32) -> Vec<u8> {
    let Some(h) = opcode::ext_headers(op) else {
        return Vec::new();
    };
    let v = |salt| value(seq, salt);
    let mut bytes = Vec::new();
    if h.reth {
        bytes.extend(RethRepr { va: v(10), rkey: v(11) as u32, dma_len: (v(12) & 0xFFFF) as u32 }.to_bytes());
    }
    if h.atomic {
        bytes.extend(AtomicEthRepr { va: v(13) & !7, rkey: v(14) as u32, swap_add: v(15), compare: v(16) }.to_bytes());
    }
    if h.aeth {
        // ACK with a credit count, or RNR NAK, or NAK: syndrome types 000/001/011.
        let syndrome = [0x1F, 0x20 | (v(17) as u8 & 0x1F), 0x60 | (v(17) as u8 & 0x03)][(v(18) % 3) as usize];
        bytes.extend(AethRepr { syndrome, msn: (v(19) & 0xFF_FFFF) as u32 }.to_bytes());
    }
    if h.atomic_ack {
        bytes.extend(AtomicAckEthRepr { orig: v(20) }.to_bytes());
    }
    if h.deth {
        bytes.extend(DethRepr { qkey: v(21) as u32, reserved: 0, src_qp: (v(22) & 0xFF_FFFF) as u32 }.to_bytes());
    }
    if h.imm {
        bytes.extend(ImmDtRepr { data: v(23) as u32 }.to_bytes());
    }
    if h.ieth {
        bytes.extend(IethRepr { rkey: v(24) as u32 }.to_bytes());
    }
    if h.cnp {
        bytes.resize(bytes.len() + opcode::CNP_RESERVED_LEN, 0);
    }
    bytes
}

/// Every opcode RoCEv2 carries, in numeric order.
pub fn carried_opcodes() -> Vec<u8> {
    (0..=255u8).filter(|&op| opcode::ext_headers(op).is_some()).collect()
}

/// A payload length that suits an opcode: CNPs, ACKs and READ requests
/// carry none.
fn payload_for(op: u8, seq: u32) -> usize {
    let h = opcode::ext_headers(op).unwrap_or_default();
    let bare = h.cnp || (h.aeth && op != 0x0D && op != 0x0F && op != 0x10) || op == 0x0C || h.atomic;
    if bare {
        0
    } else {
        (value(seq, 99) % 300) as usize
    }
}

fn roce(op: u8, seq: u32) -> RoceFrame {
    RoceFrame::new(op, seq).with_payload(payload_for(op, seq), seq)
}

/// All generated captures.
pub fn all_captures() -> Vec<Capture> {
    let mut captures = vec![
        valid("opcodes.pcap", opcodes()),
        valid("vlan.pcap", vlan()),
        valid("ipv4_options.pcap", ipv4_options()),
        valid("ipv6.pcap", ipv6()),
        valid("ecn_dscp.pcap", ecn_dscp()),
        valid("pad_cnt.pcap", pad_cnt()),
        valid("frame_sizes.pcap", frame_sizes()),
        valid("non_roce.pcap", non_roce()),
        valid("back_to_back.pcap", back_to_back()),
    ];
    captures.extend(error_captures());
    captures.extend(crate::cn_stimuli::cn_captures());
    captures
}

fn valid(name: &str, frames: Vec<Vec<u8>>) -> Capture {
    Capture {
        name: name.to_string(),
        frames: frames.into_iter().map(GenFrame::ok).collect(),
        expect_error: None,
        nic: None,
    }
}

fn opcodes() -> Vec<Vec<u8>> {
    carried_opcodes().into_iter().enumerate().map(|(i, op)| roce(op, i as u32).build()).collect()
}

fn vlan() -> Vec<Vec<u8>> {
    let (c, s) = (ethertype::VLAN_CTAG, ethertype::VLAN_STAG);
    let stacks: Vec<Vec<(u16, u8, u16)>> = vec![
        vec![],
        vec![(c, 0, 1)],
        vec![(c, 3, 100)],
        vec![(c, 7, 4094)],
        vec![(s, 5, 200), (c, 3, 300)],
        vec![(c, 1, 10), (c, 2, 20)],
        vec![(s, 6, 4095), (s, 0, 0)],
        // A third tag is beyond what the parser strips: non_roce.
        vec![(s, 1, 1), (c, 2, 2), (c, 3, 3)],
    ];
    let mut frames = Vec::new();
    for (i, stack) in stacks.iter().enumerate() {
        let seq = 1000 + i as u32;
        frames.push(roce(0x04, seq).tagged(stack).build());
        frames.push(roce(0x0A, seq).tagged(stack).ipv6(seq).build());
        frames.push(roce(0x81, seq).tagged(stack).build());
    }
    frames
}

fn ipv4_options() -> Vec<Vec<u8>> {
    (5..=15u32)
        .map(|ihl| {
            let words = (ihl - 5) as usize;
            // NOPs, then End of Option List, as senders pad options.
            let mut options = vec![0x01; words * 4];
            if let Some(last) = options.last_mut() {
                *last = 0x00;
            }
            let mut f = roce(0x0B, 2000 + ihl);
            f.l3 = L3::V4 { options };
            f.build()
        })
        .collect()
}

fn ipv6() -> Vec<Vec<u8>> {
    carried_opcodes()
        .into_iter()
        .enumerate()
        .map(|(i, op)| {
            let seq = 3000 + i as u32;
            let mut f = roce(op, seq).ipv6(value(seq, 30) as u32);
            f.dscp = (value(seq, 31) & 0x3F) as u8;
            f.ecn = (value(seq, 32) & 3) as u8;
            f.build()
        })
        .collect()
}

fn ecn_dscp() -> Vec<Vec<u8>> {
    let mut frames = Vec::new();
    for (i, &dscp) in [0u8, 10, 26, 46, 48, 63].iter().enumerate() {
        for ecn in 0..4u8 {
            let seq = 4000 + (i as u32) * 4 + ecn as u32;
            for v6 in [false, true] {
                let mut f = roce(0x01, seq);
                if v6 {
                    f = f.ipv6(seq);
                }
                f.dscp = dscp;
                f.ecn = ecn;
                frames.push(f.build());
            }
        }
    }
    frames
}

fn pad_cnt() -> Vec<Vec<u8>> {
    (0..16usize)
        .map(|len| RoceFrame::new(0x02, 5000 + len as u32).with_payload(len, 5000 + len as u32).build())
        .collect()
}

fn frame_sizes() -> Vec<Vec<u8>> {
    let mut frames = Vec::new();
    // RC SEND only with no payload is 58 bytes: padded to the 60-byte minimum.
    frames.push(RoceFrame::new(0x04, 6000).build());
    // Every length from one beat of 64 bits to several beats of 512.
    for payload in 0..=200usize {
        frames.push(RoceFrame::new(0x00, 6001 + payload as u32).with_payload(payload, 6001).build());
    }
    for (i, &payload) in [1024usize, 4096, 8192, 9000 - 62].iter().enumerate() {
        frames.push(RoceFrame::new(0x0A, 6300 + i as u32).with_payload(payload, 6300).build());
    }
    frames
}

fn non_roce() -> Vec<Vec<u8>> {
    let eth = |ethertype: u16, body: &[u8]| {
        let mut f = EthernetRepr { dst_addr: host_mac(2), src_addr: host_mac(1), ethertype }.to_bytes().to_vec();
        f.extend_from_slice(body);
        f.resize(f.len().max(MIN_FRAME_LEN), 0);
        f
    };
    let mut frames = Vec::new();
    // ARP request.
    let mut arp = vec![0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x01];
    arp.extend_from_slice(&host_mac(1));
    arp.extend_from_slice(&host_ipv4(1));
    arp.extend_from_slice(&[0; 6]);
    arp.extend_from_slice(&host_ipv4(2));
    frames.push(eth(ethertype::ARP, &arp));
    // RoCEv1: a GRH (IPv6-like, next header 0x1B) and BTH over EtherType 0x8915.
    let mut grh = vec![0x60, 0, 0, 0, 0, 16, 0x1B, 64];
    grh.extend_from_slice(&host_ipv6(1));
    grh.extend_from_slice(&host_ipv6(2));
    grh.extend(RoceFrame::new(0x04, 7000).bth.to_bytes());
    frames.push(eth(ethertype::ROCE_V1, &grh));
    // LLDP.
    frames.push(eth(0x88CC, &[0x02, 0x07, 0x04, 0x02, 0, 0, 0, 0, 1, 0, 0]));
    // TCP over IPv4, with a 20-byte TCP header where UDP would be.
    let mut tcp = roce(0x04, 7001);
    tcp.ip_proto = ip_proto::TCP;
    frames.push(tcp.build());
    // UDP to other ports: DNS, and a RoCE source port to a non-RoCE port.
    let mut dns = roce(0x04, 7002);
    dns.udp_dport = 53;
    frames.push(dns.build());
    let mut reverse = roce(0x04, 7003);
    reverse.udp_sport = ROCE_V2_UDP_PORT;
    reverse.udp_dport = 50000;
    frames.push(reverse.build());
    // IPv6 ICMPv6 and "no next header".
    for nh in [58u8, 59] {
        let mut f = roce(0x04, 7004 + nh as u32).ipv6(1);
        f.ip_proto = nh;
        frames.push(f.build());
    }
    // A RoCE frame behind two VLAN tags still counts; behind three it does not.
    let (c, s) = (ethertype::VLAN_CTAG, ethertype::VLAN_STAG);
    frames.push(roce(0x04, 7100).tagged(&[(s, 0, 1), (c, 0, 2), (c, 0, 3)]).build());
    frames
}

/// A long mix of small frames sent back to back: the throughput case.
fn back_to_back() -> Vec<Vec<u8>> {
    let ops = carried_opcodes();
    (0..2000u32)
        .map(|i| {
            let op = ops[(value(i, 50) % ops.len() as u64) as usize];
            let mut f = RoceFrame::new(op, 8000 + i);
            if value(i, 51).is_multiple_of(4) {
                f = f.ipv6(i);
            }
            f.ecn = (value(i, 52) & 3) as u8;
            f.build()
        })
        .collect()
}

/// Edits the frame and then recomputes the IPv4 header checksum.
fn edit_ipv4(f: &RoceFrame, edit: impl FnOnce(&mut Vec<u8>, usize)) -> Vec<u8> {
    let mut bytes = f.build();
    let l3 = f.l3_offset();
    edit(&mut bytes, l3);
    fix_ipv4_checksum(&mut bytes, l3);
    bytes
}

fn set_u16(bytes: &mut [u8], at: usize, value: u16) {
    bytes[at..at + 2].copy_from_slice(&value.to_be_bytes());
}

fn cut(mut bytes: Vec<u8>, len: usize) -> Vec<u8> {
    bytes.truncate(len);
    bytes
}

fn error_captures() -> Vec<Capture> {
    use ParseError as E;
    let base = |seq: u32| roce(0x0A, seq).with_payload(64, seq);
    let v6 = |seq: u32| base(seq).ipv6(seq);
    let tagged = |seq: u32| base(seq).tagged(&[(ethertype::VLAN_CTAG, 1, 5)]);
    let qinq = |seq: u32| base(seq).tagged(&[(ethertype::VLAN_STAG, 1, 5), (ethertype::VLAN_CTAG, 2, 6)]);
    let with_transport = |op: u8, len: usize, seq: u32| {
        let mut f = roce(op, seq);
        f.transport_len = Some(len);
        f.build()
    };

    let mut per_class: Vec<(E, Vec<Vec<u8>>)> = vec![
        (
            E::TruncatedEth,
            vec![vec![], vec![0xFF; 5], cut(base(1).build(), 13), cut(tagged(2).build(), 17), cut(qinq(3).build(), 21)],
        ),
        (
            E::TruncatedIp,
            vec![cut(base(10).build(), 14 + 19), cut(tagged(11).build(), 18 + 1), cut(v6(12).build(), 14 + 39), {
                let mut f = base(13);
                f.l3 = L3::V4 { options: vec![1; 40] };
                cut(f.build(), 14 + 40)
            }],
        ),
        (
            E::BadIpVersion,
            vec![edit_ipv4(&base(20), |b, l3| b[l3] = 0x65), {
                let mut b = v6(21).build();
                b[14] = 0x40 | (b[14] & 0x0F);
                b
            }],
        ),
        (E::BadIhl, (0..5u8).map(|ihl| edit_ipv4(&base(30 + ihl as u32), |b, l3| b[l3] = 0x40 | ihl)).collect()),
        (
            E::BadIpv4Checksum,
            vec![
                {
                    let mut b = base(40).build();
                    b[14 + 11] ^= 0x01;
                    b
                },
                {
                    let mut b = qinq(41).build();
                    b[22 + 10..22 + 12].copy_from_slice(&[0, 0]);
                    b
                },
            ],
        ),
        (
            E::BadIpLength,
            vec![
                edit_ipv4(&base(50), |b, l3| set_u16(b, l3 + 2, 0)),
                edit_ipv4(&base(51), |b, l3| set_u16(b, l3 + 2, 19)),
            ],
        ),
        (
            E::IpLengthExceedsFrame,
            vec![
                edit_ipv4(&base(60), |b, l3| {
                    let total = u16::from_be_bytes([b[l3 + 2], b[l3 + 3]]);
                    set_u16(b, l3 + 2, total + 1)
                }),
                cut(base(61).build(), 14 + 20 + 4),
                {
                    let mut b = v6(62).build();
                    let plen = u16::from_be_bytes([b[18], b[19]]);
                    set_u16(&mut b, 18, plen + 1);
                    b
                },
                cut(v6(63).build(), 14 + 40 + 30),
            ],
        ),
        (
            E::IpFragment,
            vec![
                edit_ipv4(&base(70), |b, l3| b[l3 + 6] |= 0x20),
                edit_ipv4(&base(71), |b, l3| set_u16(b, l3 + 6, 185)),
            ],
        ),
        (
            E::Ipv6ExtHeader,
            [0u8, 43, 44, 60]
                .iter()
                .map(|&nh| {
                    let mut f = v6(80 + nh as u32);
                    f.ip_proto = nh;
                    f.build()
                })
                .collect(),
        ),
        (
            E::TruncatedUdp,
            vec![edit_ipv4(&base(90), |b, l3| set_u16(b, l3 + 2, 20 + 7)), {
                let mut b = v6(91).build();
                set_u16(&mut b, 18, 6);
                b
            }],
        ),
        (
            E::UdpLengthMismatch,
            vec![
                {
                    let mut b = base(100).build();
                    let len = u16::from_be_bytes([b[38], b[39]]);
                    set_u16(&mut b, 38, len - 1);
                    b
                },
                {
                    let mut b = v6(101).build();
                    set_u16(&mut b, 14 + 40 + 4, 0);
                    b
                },
            ],
        ),
        (
            E::TruncatedBth,
            vec![with_transport(0x04, 0, 110), with_transport(0x04, 5, 111), with_transport(0x04, 11, 112)],
        ),
        (
            E::BadTver,
            [1u8, 15]
                .iter()
                .map(|&tver| {
                    let mut f = base(120 + tver as u32);
                    f.bth.tver = tver;
                    f.build()
                })
                .collect(),
        ),
        (
            E::ReservedOpcode,
            [0x15u8, 0x18, 0x1F, 0x2C, 0x40, 0x66, 0x80, 0xA0, 0xC0, 0xFF]
                .iter()
                .map(|&op| RoceFrame::new(op, 130 + op as u32).with_payload(8, 130).build())
                .collect(),
        ),
        (
            E::TruncatedExt,
            vec![
                with_transport(0x0C, 12 + 8, 140),
                with_transport(0x13, 12 + 27, 141),
                with_transport(0x64, 12 + 4, 142),
                with_transport(0x81, 12 + 15, 143),
            ],
        ),
        (
            E::TooShortForIcrc,
            vec![
                with_transport(0x04, 12 + 3, 150),
                {
                    let mut f = RoceFrame::new(0x04, 151);
                    f.bth.pad_cnt = 3;
                    f.transport_len = Some(12 + 6);
                    f.build()
                },
                with_transport(0x0A, 12 + 16 + 2, 152),
            ],
        ),
        (
            E::BadIcrc,
            vec![
                {
                    let mut f = base(160);
                    f.corrupt_icrc = true;
                    f.build()
                },
                {
                    let mut b = base(161).build();
                    let last_payload = b.len() - 5;
                    b[last_payload] ^= 0x80;
                    b
                },
                {
                    // The BTH MigReq bit is covered by the ICRC.
                    let f = v6(162);
                    let mut b = f.build();
                    b[14 + 40 + 8 + 1] ^= 0x40;
                    b
                },
            ],
        ),
    ];
    let mut captures: Vec<Capture> = per_class
        .drain(..)
        .map(|(error, frames)| Capture {
            name: format!("errors/{}.pcap", error.name()),
            frames: frames.into_iter().map(GenFrame::ok).collect(),
            expect_error: Some(error),
            nic: None,
        })
        .collect();
    captures.push(Capture {
        name: format!("errors/{}.pcapng", ParseError::MacError.name()),
        frames: vec![roce(0x04, 170).build(), base(171).build(), RoceFrame::new(0x81, 172).build()]
            .into_iter()
            .map(|data| GenFrame { data, mac_error: true, time_ns: None })
            .collect(),
        expect_error: Some(ParseError::MacError),
        nic: None,
    });
    captures
}

/// Writes the generated captures to a fresh directory and compares them
/// with `dir`; returns the names that differ or are missing.
pub fn stale_captures(dir: &Path, scratch: &Path) -> io::Result<Vec<String>> {
    let written = write_all(scratch).map_err(|e| io::Error::other(format!("{e:#}")))?;
    let mut stale = Vec::new();
    for (path, _) in written {
        let name = path.strip_prefix(scratch).unwrap_or(&path).to_path_buf();
        let fresh = fs::read(&path)?;
        if fs::read(dir.join(&name)).ok().as_deref() != Some(&fresh[..]) {
            stale.push(name.display().to_string());
        }
    }
    Ok(stale)
}
