//! A minimal Kafka client on tokio: ApiVersions (with Kafka's fallback when the broker does
//! not support the version asked), the version of every API both sides support, then
//! Metadata at the negotiated version: the brokers and topics of the cluster.
//!
//! ```sh
//! cargo run -p kafka-wire-examples --example client -- 127.0.0.1:9092
//! ```
//!
//! The interop tests run it against librdkafka's mock cluster and against the `broker`
//! example.

use futures_util::{SinkExt, StreamExt};
use kafka_wire::codec::Framed;
use kafka_wire::frame::DecodeOptions;
use kafka_wire::typed::ClientCodec;
use kafka_wire::{DecodeErrorKind, Version};
use kafka_wire_messages::negotiate::api_versions_retry_version;
use kafka_wire_messages::{
    ApiKey, ApiVersionsRequest, ApiVersionsResponse, MetadataRequest, RequestFrame, ResponseBody,
    ResponseFrame,
};
use tokio::net::TcpStream;

type Error = Box<dyn std::error::Error + Send + Sync>;

/// A connection that sends requests and reads responses decoded by API and version.
type Connection = Framed<TcpStream, ClientCodec<RequestFrame, ResponseFrame>>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:9092".to_owned());
    let stream = TcpStream::connect(&addr).await?;
    // Requests out, responses in: the codec remembers each request's API and version by
    // correlation id, so responses come back decoded.
    let mut conn: Connection = Framed::new(stream, ClientCodec::new());

    // Ask at our highest ApiVersions version; a broker that does not support it answers
    // UNSUPPORTED_VERSION (Kafka with a v0 body listing what it does support), and we ask
    // again at the highest version it lists, or v0.
    let mut version = ApiKey::ApiVersions.max_version();
    let mut correlation_id = 1;
    let broker = loop {
        let request = ApiVersionsRequest {
            client_software_name: "kafka-wire-example".into(),
            client_software_version: env!("CARGO_PKG_VERSION").into(),
            ..Default::default()
        };
        conn.send(RequestFrame::new(
            correlation_id,
            Some("example-client".into()),
            version,
            request,
        ))
        .await?;
        let answer = conn
            .next()
            .await
            .ok_or("the broker closed the connection")??;
        let body = match answer {
            Ok(ResponseFrame {
                version: answered_at,
                body: ResponseBody::ApiVersions(body),
                ..
            }) => {
                println!(
                    "ApiVersions v{version} -> answered at v{answered_at}, error code {}",
                    body.error_code
                );
                body
            }
            Ok(_) => return Err("not an ApiVersions response".into()),
            // Brokers disagree on the layout of the UNSUPPORTED_VERSION answer (librdkafka's
            // mock writes one that is neither v0 nor the version asked), but its error code
            // is always the first two body bytes; with nothing else readable, retry at v0.
            Err(bad) => {
                let code = bad
                    .frame
                    .get(8..10)
                    .map_or(-1, |b| i16::from_be_bytes([b[0], b[1]]));
                println!("ApiVersions v{version} -> undecodable answer, error code {code}");
                ApiVersionsResponse {
                    error_code: code,
                    ..Default::default()
                }
            }
        };
        match api_versions_retry_version(&body, ApiKey::ApiVersions.request_versions()) {
            Some(retry) if retry < version => {
                version = retry;
                correlation_id += 1;
            }
            Some(_) => return Err("the broker refuses every ApiVersions version".into()),
            None if body.error_code != 0 => {
                return Err(format!("ApiVersions failed with error {}", body.error_code).into())
            }
            None => break body,
        }
    };

    report(&broker);
    match ApiKey::negotiate(&broker, false).version(ApiKey::Metadata.key()) {
        Some(version) => metadata(&mut conn, correlation_id + 1, version).await,
        None => {
            println!("the broker does not offer Metadata");
            Ok(())
        }
    }
}

/// Asks for the metadata of every topic at `version` and prints the brokers and topics.
async fn metadata(
    conn: &mut Connection,
    correlation_id: i32,
    version: Version,
) -> Result<(), Error> {
    let request = MetadataRequest {
        topics: None, // every topic
        ..Default::default()
    };
    conn.send(RequestFrame::new(
        correlation_id,
        Some("example-client".into()),
        version,
        request,
    ))
    .await?;
    let answer = conn
        .next()
        .await
        .ok_or("the broker closed the connection")??;
    let frame = match answer {
        Ok(frame) => frame,
        // Bytes after a correct body: Java's clients never look past the body, so read it as
        // they do, and say so. (librdkafka's mock cluster appends one zero byte to its Metadata
        // v12 answers.) Strict decoding stays the default, since only then does a decoded frame
        // encode back to the bytes it came from.
        Err(bad) if matches!(bad.error.kind(), DecodeErrorKind::TrailingBytes(_)) => {
            let lenient = DecodeOptions::new().with_trailing_bytes(true);
            let decoded = ResponseFrame::decode(&bad.frame, ApiKey::Metadata, version, &lenient)?;
            println!(
                "Metadata v{version}: ignored {} byte(s) after the body",
                decoded.trailing_bytes
            );
            decoded.frame
        }
        Err(bad) => return Err(bad.error.into()),
    };
    let ResponseBody::Metadata(body) = frame.body else {
        return Err("not a Metadata response".into());
    };
    println!(
        "Metadata v{version}: {} brokers, controller {}, {} topics",
        body.brokers.len(),
        body.controller_id,
        body.topics.len()
    );
    for b in &body.brokers {
        println!("broker {} at {}:{}", b.node_id, b.host, b.port);
    }
    for t in &body.topics {
        println!(
            "topic {}: {} partitions, error code {}",
            t.name.as_deref().unwrap_or("(no name)"),
            t.partitions.len(),
            t.error_code
        );
    }
    Ok(())
}

/// Prints the version negotiated for each declared API both sides support.
fn report(broker: &ApiVersionsResponse) {
    let negotiated = ApiKey::negotiate(broker, false);
    println!(
        "broker lists {} APIs; {} of the {} declared here are usable",
        broker.api_keys.len(),
        negotiated.len(),
        ApiKey::ALL.len()
    );
    for (key, version) in negotiated.iter() {
        let name = ApiKey::from_i16(key).map_or("?", ApiKey::name);
        println!("use {name} v{version}");
    }
}
