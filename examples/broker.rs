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
use kafka_wire::typed::ServerCodec;
use kafka_wire::{frame, Bytes, ErrorCode, ResponseHeader};
use kafka_wire_messages::{
    ApiKey, ApiVersion, ApiVersionsResponse, RequestBody, RequestFrame, ResponseFrame,
};
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

/// What this stub lists: ApiVersions only, at every version declared, since it is all it
/// serves.
fn api_versions(error: ErrorCode) -> ApiVersionsResponse {
    let api = ApiKey::ApiVersions;
    ApiVersionsResponse {
        error_code: error.code(),
        api_keys: vec![ApiVersion {
            api_key: api.key(),
            min_version: api.min_version(),
            max_version: api.max_version(),
            ..Default::default()
        }],
        ..Default::default()
    }
}

async fn serve(socket: TcpStream) -> Result<(), Error> {
    let mut conn = Framed::new(socket, ServerCodec::<RequestFrame, ResponseFrame>::new());
    while let Some(request) = conn.next().await {
        match request? {
            Ok(RequestFrame {
                header,
                body: RequestBody::ApiVersions(req),
            }) => {
                println!(
                    "ApiVersions v{} from {:?} ({} {})",
                    header.request_api_version,
                    header.client_id.as_deref().unwrap_or(""),
                    req.client_software_name,
                    req.client_software_version,
                );
                let answer = ResponseFrame::new(
                    header.correlation_id,
                    header.request_api_version,
                    api_versions(ErrorCode::NONE),
                );
                conn.send(answer).await?;
            }
            Ok(other) => {
                println!("{} is not served here: closing", other.api_key());
                return Ok(());
            }
            Err(undecodable) => {
                // An ApiVersions request at a version we lack: answer at v0, as Kafka does, so
                // the client can retry at one we have.
                let peek = frame::peek_request_header(&undecodable.frame)?;
                if peek.api_key != ApiKey::ApiVersions.key() {
                    println!("undecodable request: {}: closing", undecodable.error);
                    return Ok(());
                }
                println!(
                    "ApiVersions v{}: unsupported, answering v0",
                    peek.api_version
                );
                let mut out = Vec::new();
                frame::encode_response(
                    &mut out,
                    &ResponseHeader::new(peek.correlation_id),
                    0,
                    &api_versions(ErrorCode::UNSUPPORTED_VERSION),
                )?;
                conn.send(Bytes::from(out)).await?;
            }
        }
    }
    Ok(())
}
