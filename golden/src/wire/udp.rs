//! UDP (RFC 768).

use super::field::plain_header;

/// The IANA-assigned RoCEv2 UDP destination port.
pub const ROCE_V2_UDP_PORT: u16 = 4791;

plain_header!(
    /// The UDP header. RoCEv2 senders leave the checksum 0.
    UdpPacket / UdpRepr, 8, {
        src_port, set_src_port: u16 = u16_at, set_u16 @ 0;
        dst_port, set_dst_port: u16 = u16_at, set_u16 @ 2;
        /// Header and payload, bytes.
        length, set_length: u16 = u16_at, set_u16 @ 4;
        checksum, set_checksum: u16 = u16_at, set_u16 @ 6;
    }
);

/// Offset of the checksum in the header, a variant field of the ICRC.
pub const UDP_CHECKSUM_OFFSET: usize = 6;
