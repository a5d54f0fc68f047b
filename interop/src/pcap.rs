//! A tiny pcap writer: TCP conversations over Ethernet/IPv4, with real lengths, sequence
//! numbers and checksums, so that Wireshark dissects the payloads as it would a capture.

use std::net::SocketAddrV4;

/// Largest TCP payload per segment (an Ethernet MSS).
const MSS: usize = 1460;

#[derive(Debug, Clone, Copy)]
struct Conversation {
    client: SocketAddrV4,
    server: SocketAddrV4,
    client_seq: u32,
    server_seq: u32,
}

/// Identifies a conversation of a [`PcapWriter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConversationId(usize);

/// Builds a pcap file (link type Ethernet) in memory.
#[derive(Debug, Clone)]
pub struct PcapWriter {
    out: Vec<u8>,
    conversations: Vec<Conversation>,
    micros: u64,
    packets: usize,
}

const SYN: u8 = 0x02;
const ACK: u8 = 0x10;
const PSH: u8 = 0x08;

impl Default for PcapWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl PcapWriter {
    /// An empty capture (global header only).
    pub fn new() -> Self {
        let mut out = Vec::new();
        out.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes()); // magic, microseconds
        out.extend_from_slice(&2u16.to_le_bytes()); // version 2.4
        out.extend_from_slice(&4u16.to_le_bytes());
        out.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        out.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        out.extend_from_slice(&65535u32.to_le_bytes()); // snaplen
        out.extend_from_slice(&1u32.to_le_bytes()); // LINKTYPE_ETHERNET
        PcapWriter {
            out,
            conversations: Vec::new(),
            micros: 1_700_000_000_000_000,
            packets: 0,
        }
    }

    /// Opens a TCP conversation with a three-way handshake.
    pub fn open(&mut self, client: SocketAddrV4, server: SocketAddrV4) -> ConversationId {
        let n = self.conversations.len() as u32;
        let mut c = Conversation {
            client,
            server,
            client_seq: 1000 + n * 100_000,
            server_seq: 5_000_000 + n * 100_000,
        };
        self.segment(&c, true, SYN, c.client_seq, 0, &[]);
        c.client_seq = c.client_seq.wrapping_add(1);
        self.segment(&c, false, SYN | ACK, c.server_seq, c.client_seq, &[]);
        c.server_seq = c.server_seq.wrapping_add(1);
        self.segment(&c, true, ACK, c.client_seq, c.server_seq, &[]);
        self.conversations.push(c);
        ConversationId(self.conversations.len() - 1)
    }

    /// Appends `payload` sent by the client (`to_server`) or by the server, in segments of at
    /// most one MSS, each acknowledging everything the other side sent.
    pub fn send(&mut self, id: ConversationId, to_server: bool, payload: &[u8]) {
        let mut c = self.conversations[id.0];
        for chunk in payload.chunks(MSS) {
            if to_server {
                self.segment(&c, true, PSH | ACK, c.client_seq, c.server_seq, chunk);
                c.client_seq = c.client_seq.wrapping_add(chunk.len() as u32);
            } else {
                self.segment(&c, false, PSH | ACK, c.server_seq, c.client_seq, chunk);
                c.server_seq = c.server_seq.wrapping_add(chunk.len() as u32);
            }
        }
        self.conversations[id.0] = c;
    }

    /// Number of packets written.
    pub fn packets(&self) -> usize {
        self.packets
    }

    /// The pcap file.
    pub fn into_bytes(self) -> Vec<u8> {
        self.out
    }

    fn segment(
        &mut self,
        c: &Conversation,
        from_client: bool,
        flags: u8,
        seq: u32,
        ack: u32,
        payload: &[u8],
    ) {
        let (src, dst) = if from_client {
            (c.client, c.server)
        } else {
            (c.server, c.client)
        };
        let tcp_len = 20 + payload.len();
        let mut tcp = Vec::with_capacity(tcp_len);
        tcp.extend_from_slice(&src.port().to_be_bytes());
        tcp.extend_from_slice(&dst.port().to_be_bytes());
        tcp.extend_from_slice(&seq.to_be_bytes());
        tcp.extend_from_slice(&(if flags & ACK != 0 { ack } else { 0 }).to_be_bytes());
        tcp.push(5 << 4); // data offset: 5 words, no options
        tcp.push(flags);
        tcp.extend_from_slice(&65535u16.to_be_bytes()); // window
        tcp.extend_from_slice(&[0, 0]); // checksum, below
        tcp.extend_from_slice(&[0, 0]); // urgent pointer
        tcp.extend_from_slice(payload);
        let mut pseudo = Vec::with_capacity(12 + tcp.len());
        pseudo.extend_from_slice(&src.ip().octets());
        pseudo.extend_from_slice(&dst.ip().octets());
        pseudo.extend_from_slice(&[0, 6]);
        pseudo.extend_from_slice(&(tcp_len as u16).to_be_bytes());
        pseudo.extend_from_slice(&tcp);
        let sum = checksum(&pseudo);
        tcp[16..18].copy_from_slice(&sum.to_be_bytes());

        let total = 20 + tcp_len;
        let mut ip = Vec::with_capacity(total);
        ip.push(0x45);
        ip.push(0);
        ip.extend_from_slice(&(total as u16).to_be_bytes());
        ip.extend_from_slice(&((self.packets & 0xffff) as u16).to_be_bytes()); // id
        ip.extend_from_slice(&0x4000u16.to_be_bytes()); // don't fragment
        ip.push(64); // ttl
        ip.push(6); // TCP
        ip.extend_from_slice(&[0, 0]);
        ip.extend_from_slice(&src.ip().octets());
        ip.extend_from_slice(&dst.ip().octets());
        let sum = checksum(&ip);
        ip[10..12].copy_from_slice(&sum.to_be_bytes());
        ip.extend_from_slice(&tcp);

        let mut eth = Vec::with_capacity(14 + ip.len());
        let (smac, dmac) = if from_client {
            ([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
        } else {
            ([2, 0, 0, 0, 0, 2], [2, 0, 0, 0, 0, 1])
        };
        eth.extend_from_slice(&dmac);
        eth.extend_from_slice(&smac);
        eth.extend_from_slice(&0x0800u16.to_be_bytes());
        eth.extend_from_slice(&ip);

        self.micros += 1000;
        let len = eth.len() as u32;
        self.out
            .extend_from_slice(&((self.micros / 1_000_000) as u32).to_le_bytes());
        self.out
            .extend_from_slice(&((self.micros % 1_000_000) as u32).to_le_bytes());
        self.out.extend_from_slice(&len.to_le_bytes());
        self.out.extend_from_slice(&len.to_le_bytes());
        self.out.extend_from_slice(&eth);
        self.packets += 1;
    }
}

/// The Internet checksum (RFC 1071).
fn checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for pair in data.chunks(2) {
        let word = u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]);
        sum += u32::from(word);
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_of_rfc1071_example() {
        // RFC 1071 §3: the sum of 0001 f203 f4f5 f6f7 is ddf2 (one's complement 220d).
        assert_eq!(
            checksum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]),
            0x220d
        );
    }

    #[test]
    fn lengths_add_up() {
        let mut w = PcapWriter::new();
        let id = w.open(
            "127.0.0.1:50000".parse().unwrap(),
            "127.0.0.2:9092".parse().unwrap(),
        );
        w.send(id, true, &[0u8; 3000]);
        assert_eq!(w.packets(), 3 + 3);
        let bytes = w.into_bytes();
        // Global header, then 3 handshake packets of 54 bytes, then 1460 + 1460 + 80.
        let expected = 24 + 3 * (16 + 54) + 3 * (16 + 54) + 3000;
        assert_eq!(bytes.len(), expected);
    }
}
