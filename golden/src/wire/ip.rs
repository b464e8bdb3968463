//! IPv4 (RFC 791) with options, its header checksum (RFC 1071), and IPv6
//! (RFC 8200).

use super::ethernet::ethertype;
use super::field::header_view;
use super::field::Error;

/// IP protocol numbers.
pub mod ip_proto {
    pub const TCP: u8 = 6;
    pub const UDP: u8 = 17;
    pub const IPV6_FRAGMENT: u8 = 44;

    /// IPv6 next-header values that are extension headers (IANA "IPv6
    /// Extension Header Types"); the parser classifies them, it does not
    /// walk them.
    pub fn is_ipv6_extension(next_header: u8) -> bool {
        matches!(next_header, 0 | 43 | 44 | 50 | 51 | 60 | 135 | 139 | 140 | 253 | 254)
    }
}

/// RFC 1071 ones' complement sum of 16-bit big-endian words, folded to 16
/// bits the way the RTL folds it (two end-around carries).
pub fn ones_complement_sum(bytes: &[u8]) -> u16 {
    let mut pairs = bytes.chunks_exact(2);
    let mut sum: u32 = pairs.by_ref().map(|w| u32::from(u16::from_be_bytes([w[0], w[1]]))).sum();
    if let [last] = pairs.remainder() {
        sum += u32::from(*last) << 8;
    }
    let once = (sum & 0xFFFF) + (sum >> 16);
    ((once & 0xFFFF) + (once >> 16)) as u16
}

header_view!(
    /// The IPv4 header; options follow the 20 fixed bytes when IHL > 5.
    Ipv4Packet, 20, {
        /// Version (7:4), IHL in 32-bit words (3:0).
        version_ihl, set_version_ihl: u8 = u8_at, set_u8 @ 0;
        /// DSCP (7:2), ECN (1:0).
        tos, set_tos: u8 = u8_at, set_u8 @ 1;
        total_len, set_total_len: u16 = u16_at, set_u16 @ 2;
        ident, set_ident: u16 = u16_at, set_u16 @ 4;
        /// Reserved (15), DF (14), MF (13), fragment offset (12:0).
        flags_frag, set_flags_frag: u16 = u16_at, set_u16 @ 6;
        ttl, set_ttl: u8 = u8_at, set_u8 @ 8;
        protocol, set_protocol: u8 = u8_at, set_u8 @ 9;
        checksum, set_checksum: u16 = u16_at, set_u16 @ 10;
        src_addr, set_src_addr: [u8; 4] = bytes_at, set_bytes @ 12;
        dst_addr, set_dst_addr: [u8; 4] = bytes_at, set_bytes @ 16;
    }
);

const DONT_FRAGMENT: u16 = 0x4000;
const MORE_FRAGMENTS: u16 = 0x2000;
const FRAGMENT_OFFSET: u16 = 0x1FFF;

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    pub fn version(&self) -> u8 {
        self.version_ihl() >> 4
    }
    pub fn ihl(&self) -> u8 {
        self.version_ihl() & 0x0F
    }
    /// The header length IHL gives, bytes (options included).
    pub fn header_len(&self) -> usize {
        usize::from(self.ihl()) * 4
    }
    pub fn dscp(&self) -> u8 {
        self.tos() >> 2
    }
    pub fn ecn(&self) -> u8 {
        self.tos() & 3
    }
    pub fn dont_frag(&self) -> bool {
        self.flags_frag() & DONT_FRAGMENT != 0
    }
    pub fn more_frags(&self) -> bool {
        self.flags_frag() & MORE_FRAGMENTS != 0
    }
    pub fn frag_offset(&self) -> u16 {
        self.flags_frag() & FRAGMENT_OFFSET
    }
    /// A fragment other than a whole datagram: MF set or an offset.
    pub fn is_fragment(&self) -> bool {
        self.flags_frag() & (MORE_FRAGMENTS | FRAGMENT_OFFSET) != 0
    }
    /// The bytes the header checksum covers: IHL words, at least the fixed
    /// header and at most the buffer.
    fn checksummed_len(&self) -> usize {
        self.header_len().clamp(Self::LEN, self.buffer.as_ref().len())
    }
    /// The header checksum is right (the header's sum is all ones).
    pub fn verify_checksum(&self) -> bool {
        ones_complement_sum(&self.buffer.as_ref()[..self.checksummed_len()]) == 0xFFFF
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv4Packet<T> {
    /// Computes the header checksum over the IHL words (within the buffer;
    /// the fixed header when IHL is below 5) and writes it.
    pub fn fill_checksum(&mut self) {
        self.set_checksum(0);
        let len = self.checksummed_len();
        let sum = !ones_complement_sum(&self.buffer.as_ref()[..len]);
        self.set_checksum(sum);
    }
    pub fn options_mut(&mut self) -> &mut [u8] {
        let len = self.checksummed_len();
        &mut self.buffer.as_mut()[Self::LEN..len]
    }
}

/// An IPv4 header as values; `emit` sets version 4, the IHL from the
/// options and the checksum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ipv4Repr<'a> {
    pub dscp: u8,
    pub ecn: u8,
    pub ident: u16,
    pub dont_frag: bool,
    pub more_frags: bool,
    pub frag_offset: u16,
    pub ttl: u8,
    pub protocol: u8,
    pub src_addr: [u8; 4],
    pub dst_addr: [u8; 4],
    /// Whole 32-bit words, 40 bytes at most.
    pub options: &'a [u8],
    /// Bytes after the header.
    pub payload_len: usize,
}

impl<'a> Ipv4Repr<'a> {
    pub const LEN: usize = 20;

    /// The header of a well-formed IPv4 packet (version 4, IHL within the
    /// buffer); checks neither checksum nor lengths beyond that.
    pub fn parse<T: AsRef<[u8]> + ?Sized>(packet: &Ipv4Packet<&'a T>) -> Result<Self, Error> {
        let bytes = packet.buffer.as_ref();
        let header_len = packet.header_len();
        if packet.version() != 4 || header_len < Self::LEN {
            return Err(Error::Malformed);
        }
        let options = bytes.get(Self::LEN..header_len).ok_or(Error::Truncated)?;
        Ok(Ipv4Repr {
            dscp: packet.dscp(),
            ecn: packet.ecn(),
            ident: packet.ident(),
            dont_frag: packet.dont_frag(),
            more_frags: packet.more_frags(),
            frag_offset: packet.frag_offset(),
            ttl: packet.ttl(),
            protocol: packet.protocol(),
            src_addr: packet.src_addr(),
            dst_addr: packet.dst_addr(),
            options,
            payload_len: usize::from(packet.total_len()).saturating_sub(header_len),
        })
    }

    pub fn header_len(&self) -> usize {
        Self::LEN + self.options.len()
    }

    /// Writes the header (options and checksum included) into a buffer of
    /// at least `header_len()` bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut Ipv4Packet<T>) {
        assert!(
            self.options.len().is_multiple_of(4) && self.options.len() <= 40,
            "IPv4 options come in words, 40 B at most"
        );
        let header_len = self.header_len();
        packet.set_version_ihl(0x40 | (header_len / 4) as u8);
        packet.set_tos(self.dscp << 2 | (self.ecn & 3));
        packet.set_total_len((header_len + self.payload_len) as u16);
        packet.set_ident(self.ident);
        let flags = (u16::from(self.dont_frag) * DONT_FRAGMENT) | (u16::from(self.more_frags) * MORE_FRAGMENTS);
        packet.set_flags_frag(flags | (self.frag_offset & FRAGMENT_OFFSET));
        packet.set_ttl(self.ttl);
        packet.set_protocol(self.protocol);
        packet.set_src_addr(self.src_addr);
        packet.set_dst_addr(self.dst_addr);
        packet.options_mut().copy_from_slice(self.options);
        packet.fill_checksum();
    }
}

header_view!(
    /// The IPv6 fixed header.
    Ipv6Packet, 40, {
        /// Version (31:28), traffic class (27:20), flow label (19:0).
        version_class_flow, set_version_class_flow: u32 = u32_at, set_u32 @ 0;
        payload_len, set_payload_len: u16 = u16_at, set_u16 @ 4;
        next_header, set_next_header: u8 = u8_at, set_u8 @ 6;
        hop_limit, set_hop_limit: u8 = u8_at, set_u8 @ 7;
        src_addr, set_src_addr: [u8; 16] = bytes_at, set_bytes @ 8;
        dst_addr, set_dst_addr: [u8; 16] = bytes_at, set_bytes @ 24;
    }
);

impl<T: AsRef<[u8]>> Ipv6Packet<T> {
    pub fn version(&self) -> u8 {
        (self.version_class_flow() >> 28) as u8
    }
    pub fn traffic_class(&self) -> u8 {
        (self.version_class_flow() >> 20) as u8
    }
    pub fn dscp(&self) -> u8 {
        self.traffic_class() >> 2
    }
    pub fn ecn(&self) -> u8 {
        self.traffic_class() & 3
    }
    pub fn flow_label(&self) -> u32 {
        self.version_class_flow() & 0xF_FFFF
    }
}

/// An IPv6 header as values; `emit` sets version 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ipv6Repr {
    pub dscp: u8,
    pub ecn: u8,
    pub flow_label: u32,
    pub payload_len: usize,
    pub next_header: u8,
    pub hop_limit: u8,
    pub src_addr: [u8; 16],
    pub dst_addr: [u8; 16],
}

impl Ipv6Repr {
    pub const LEN: usize = 40;

    pub fn parse<T: AsRef<[u8]>>(packet: &Ipv6Packet<T>) -> Result<Self, Error> {
        if packet.version() != 6 {
            return Err(Error::Malformed);
        }
        Ok(Ipv6Repr {
            dscp: packet.dscp(),
            ecn: packet.ecn(),
            flow_label: packet.flow_label(),
            payload_len: usize::from(packet.payload_len()),
            next_header: packet.next_header(),
            hop_limit: packet.hop_limit(),
            src_addr: packet.src_addr(),
            dst_addr: packet.dst_addr(),
        })
    }

    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut Ipv6Packet<T>) {
        let class = u32::from(self.dscp << 2 | (self.ecn & 3));
        packet.set_version_class_flow(6 << 28 | class << 20 | (self.flow_label & 0xF_FFFF));
        packet.set_payload_len(self.payload_len as u16);
        packet.set_next_header(self.next_header);
        packet.set_hop_limit(self.hop_limit);
        packet.set_src_addr(self.src_addr);
        packet.set_dst_addr(self.dst_addr);
    }
}

/// Either IP header, for the frame builders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IpRepr<'a> {
    V4(Ipv4Repr<'a>),
    V6(Ipv6Repr),
}

impl IpRepr<'_> {
    pub fn ethertype(&self) -> u16 {
        match self {
            IpRepr::V4(_) => ethertype::IPV4,
            IpRepr::V6(_) => ethertype::IPV6,
        }
    }

    pub fn header_len(&self) -> usize {
        match self {
            IpRepr::V4(ip) => ip.header_len(),
            IpRepr::V6(_) => Ipv6Repr::LEN,
        }
    }

    pub fn set_payload_len(&mut self, len: usize) {
        match self {
            IpRepr::V4(ip) => ip.payload_len = len,
            IpRepr::V6(ip) => ip.payload_len = len,
        }
    }

    /// Writes the header at the start of `buffer`.
    pub fn emit(&self, buffer: &mut [u8]) {
        match self {
            IpRepr::V4(ip) => ip.emit(&mut Ipv4Packet::new_unchecked(buffer)),
            IpRepr::V6(ip) => ip.emit(&mut Ipv6Packet::new_unchecked(buffer)),
        }
    }
}
