//! A minimal broker stub on tokio that answers ApiVersions (and nothing else), as a Kafka
//! broker does: at the version asked, or, for a version it does not support, with an
//! UNSUPPORTED_VERSION v0 answer listing the versions it has.
//!
//! ```sh
//! cargo run -p kafka-wire-examples --example broker -- 127.0.0.1:9092
//! ```
//!
//! It prints `listening on ADDR` once bound (port 0 picks a free one), serves connections until
//! killed, and closes a connection on any other request.

use futures_util::{SinkExt, StreamExt};
use kafka_wire::codec::Framed;
use kafka_wire::frame;
use kafka_wire::typed::ServerCodec;
use kafka_wire_messages::answer::ServedApis;
use kafka_wire_messages::{ApiKey, RequestBody, RequestFrame, ResponseFrame};
use tokio::net::{TcpListener, TcpStream};

type Error = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:9092".to_owned());
    let listener = TcpListener::bind(&addr).await?;
    println!("listening on {}", listener.local_addr()?);
    loop {
        let (socket, peer) = listener.accept().await?;
        tokio::spawn(async move {
            if let Err(e) = serve(socket).await {
                eprintln!("{peer}: {e}");
            }
        });
    }
}

async fn serve(socket: TcpStream) -> Result<(), Error> {
    // What this stub lists: ApiVersions only, at every version declared.
    let served = ServedApis::new([ApiKey::ApiVersions]);
    let mut conn = Framed::new(socket, ServerCodec::<RequestFrame, ResponseFrame>::new());
    while let Some(request) = conn.next().await {
        match request? {
            Ok(request) => {
                let RequestBody::ApiVersions(req) = &request.body else {
                    println!("{} is not served here: closing", request.api_key());
                    return Ok(());
                };
                println!(
                    "ApiVersions v{} from {:?} ({} {})",
                    request.version(),
                    request.header.client_id.as_deref().unwrap_or(""),
                    req.client_software_name,
                    req.client_software_version,
                );
                if let Some(answer) = served.answer(&request) {
                    conn.send(answer).await?;
                }
            }
            Err(undecodable) => {
                // An ApiVersions request at a version we lack: UNSUPPORTED_VERSION at v0, as
                // Kafka does, so the client can retry at one we have.
                let Some(answer) = served.answer_undecodable(&undecodable.frame) else {
                    println!("undecodable request: {}: closing", undecodable.error);
                    return Ok(());
                };
                let peek = frame::peek_request_header(&undecodable.frame)?;
                println!(
                    "ApiVersions v{}: unsupported, answering v0",
                    peek.api_version
                );
                conn.send(answer).await?;
            }
        }
    }
    Ok(())
}
