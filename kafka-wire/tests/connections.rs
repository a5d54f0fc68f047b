//! Frames grow with the bytes received: 1,000 loopback connections that each send a size
//! prefix announcing 100 MB (`05f5e100`) and nothing else hold a few KiB each, not 100 MB,
//! through the tokio codec and through the blocking `frame::read_frame`.
//!
//! A counting global allocator (this binary only) tracks the bytes live at any moment.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use kafka_wire::bytes::BytesMut;
use kafka_wire::codec::{CodecError, Decoder, FrameCodec};
use kafka_wire::frame;
use kafka_wire::Bytes;

#[global_allocator]
static GLOBAL: kafka_wire_counting_alloc::Counting = kafka_wire_counting_alloc::Counting;

const CONNECTIONS: usize = 1000;
/// 100,000,000: under Kafka's default 100 MiB maximum, so the prefix is accepted.
const PREFIX: [u8; 4] = 100_000_000u32.to_be_bytes();

/// Two descriptors per connection (both ends are in this process), and some to spare: the
/// soft limit is raised towards the hard one where it is lower (1,024 on many systems).
fn raise_fd_limit() {
    let got = rlimit::increase_nofile_limit(2 * CONNECTIONS as u64 + 256).unwrap();
    assert!(
        got >= 2 * CONNECTIONS as u64 + 64,
        "this test needs {} file descriptors; the hard limit allows {got}",
        2 * CONNECTIONS + 64
    );
}

/// The live-bytes counter is process-wide: the tests take turns.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The bytes live in the whole process (every thread's, the runtime's included).
fn live() -> usize {
    kafka_wire_counting_alloc::live().max(0) as usize
}

/// A `FrameCodec` that counts the calls that saw a whole prefix, so the test knows every
/// connection's prefix has been through the decoder.
struct Watched {
    codec: FrameCodec,
    seen: Arc<AtomicUsize>,
}

impl Decoder for Watched {
    type Item = Bytes;
    type Error = CodecError;
    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, CodecError> {
        let out = self.codec.decode(src);
        if src.len() >= 4 {
            self.seen.fetch_add(1, Ordering::Relaxed);
        }
        out
    }
}

fn wait_for(what: &str, done: impl Fn() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_thousand_idle_100_mb_prefixes_through_the_codec() {
    use tokio::io::AsyncWriteExt;
    let _turn = serial();
    raise_fd_limit();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .unwrap();
    let seen = Arc::new(AtomicUsize::new(0));
    let before = live();
    let held = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut clients = Vec::new();
        for _ in 0..CONNECTIONS {
            let mut c = tokio::net::TcpStream::connect(addr).await.unwrap();
            c.write_all(&PREFIX).await.unwrap();
            clients.push(c);
            let (sock, _) = listener.accept().await.unwrap();
            let seen = seen.clone();
            tokio::spawn(async move {
                let codec = Watched {
                    codec: FrameCodec::new(),
                    seen,
                };
                let mut frames = tokio_util_framed(sock, codec);
                // Never completes while the peer stays idle.
                let _ = frames.next().await;
            });
        }
        let start = Instant::now();
        while seen.load(Ordering::Relaxed) < CONNECTIONS {
            assert!(start.elapsed() < Duration::from_secs(60), "timed out");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let held = live().saturating_sub(before);
        drop(clients);
        held
    });
    eprintln!(
        "codec: {CONNECTIONS} connections announcing 100 MB each hold {held} bytes ({} per connection)",
        held / CONNECTIONS
    );
    // Announced: 100 GB. Held: tokio_util's 8 KiB read buffer per connection, the runtime's
    // task and socket state, and nothing for the bodies.
    assert!(held < 16 << 20, "{held} bytes live");
}

/// `FramedRead` over a tokio socket, named once for the test above.
fn tokio_util_framed(
    sock: tokio::net::TcpStream,
    codec: Watched,
) -> tokio_util::codec::FramedRead<tokio::net::TcpStream, Watched> {
    tokio_util::codec::FramedRead::new(sock, codec)
}

#[test]
fn a_thousand_idle_100_mb_prefixes_through_read_frame() {
    let _turn = serial();
    raise_fd_limit();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let reading = Arc::new(AtomicUsize::new(0));
    let before = live();
    let mut clients = Vec::new();
    let mut readers = Vec::new();
    for _ in 0..CONNECTIONS {
        let mut c = TcpStream::connect(addr).unwrap();
        c.write_all(&PREFIX).unwrap();
        clients.push(c);
        let (mut s, _) = listener.accept().unwrap();
        let reading = reading.clone();
        readers.push(
            std::thread::Builder::new()
                .stack_size(64 * 1024)
                .spawn(move || {
                    // Counts the prefix as read once it is in the socket buffer.
                    let mut peek = [0u8; 4];
                    while s.peek(&mut peek).unwrap() < 4 {}
                    reading.fetch_add(1, Ordering::Relaxed);
                    frame::read_frame(&mut s, &frame::DecodeOptions::DEFAULT).map(|f| f.len())
                })
                .unwrap(),
        );
    }
    wait_for("every reader to start", || {
        reading.load(Ordering::Relaxed) >= CONNECTIONS
    });
    // Let the readers get past the prefix and block in the body.
    std::thread::sleep(Duration::from_millis(500));
    let held = live().saturating_sub(before);
    eprintln!(
        "read_frame: {CONNECTIONS} connections announcing 100 MB each hold {held} bytes ({} per connection)",
        held / CONNECTIONS
    );
    assert!(held < 16 << 20, "{held} bytes live");
    // Hanging up ends each read with UnexpectedEof.
    drop(clients);
    for r in readers {
        let e = r.join().unwrap().unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
    }
}

/// A frame that does arrive, slowly, is read whole, and the reader's buffers never get far
/// ahead of what has arrived.
#[test]
fn read_frame_reads_a_large_frame_in_chunks() {
    let _turn = serial();
    struct Trickle {
        data: Vec<u8>,
        at: usize,
        max_ahead: usize,
    }
    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            // The reader's buffer is never bigger than what has arrived plus a chunk.
            self.max_ahead = self.max_ahead.max(buf.len());
            let n = buf.len().min(1000).min(self.data.len() - self.at);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }
    let body = 3_000_000usize;
    let mut data = (body as u32).to_be_bytes().to_vec();
    data.extend((0..body).map(|i| i as u8));
    let mut t = Trickle {
        data: data.clone(),
        at: 0,
        max_ahead: 0,
    };
    let f = frame::read_frame(&mut t, &frame::DecodeOptions::DEFAULT).unwrap();
    assert_eq!(&f[..], &data[..]);
    assert!(t.max_ahead <= frame::READ_CHUNK_MAX, "{}", t.max_ahead);
    // A prefix announcing more than arrives: UnexpectedEof, having held one chunk.
    let mut short = &PREFIX[..];
    let e = frame::read_frame(&mut short, &frame::DecodeOptions::DEFAULT).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
}
