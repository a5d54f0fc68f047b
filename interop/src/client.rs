//! A minimal blocking Kafka client over `std::net::TcpStream`, using only kafka-wire's public
//! frame API: every request is encoded and every response decoded by our codec.
//!
//! Each exchange is kept (request and response frames) so that tests can replay the same
//! bytes to other tools (Wireshark).

use std::fmt;
use std::io;
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

use kafka_wire::frame;
use kafka_wire::frame::DecodeOptions;
use kafka_wire::{ApiMessage, Bytes, DecodeError, RequestHeader, ResponseHeader, Str, Version};
use kafka_wire_messages::{
    ApiKey, ApiVersionsRequest, ApiVersionsResponse, RequestBody, RequestFrame, ResponseBody,
    ResponseFrame, SaslAuthenticateRequest, SaslAuthenticateResponse, SaslHandshakeRequest,
    SaslHandshakeResponse,
};

/// How long any single read or write may block.
pub const IO_TIMEOUT: Duration = Duration::from_secs(10);

/// Kafka's UNSUPPORTED_VERSION error code.
pub const UNSUPPORTED_VERSION: i16 = kafka_wire::ErrorCode::UNSUPPORTED_VERSION.0;

/// Coordinator key type of a consumer group (`FindCoordinatorRequest.KeyType`).
pub const KEY_TYPE_GROUP: i8 = 0;
/// Coordinator key type of a transactional id (`FindCoordinatorRequest.KeyType`).
pub const KEY_TYPE_TRANSACTION: i8 = 1;

/// Why a request/response exchange failed.
#[derive(Debug)]
pub enum CallError {
    /// The peer closed the connection instead of answering: a Kafka broker does that with a
    /// request it cannot parse.
    Closed {
        /// API key of the request.
        api_key: i16,
        /// Version of the request.
        version: Version,
        /// Its correlation id.
        correlation_id: i32,
    },
    /// No answer within [`IO_TIMEOUT`].
    Timeout {
        /// API key of the request.
        api_key: i16,
        /// Version of the request.
        version: Version,
    },
    /// Another socket error.
    Io(io::Error),
    /// The request could not be encoded.
    Encode(kafka_wire::EncodeError),
    /// The response frame did not decode (including bytes left over after the body).
    Decode {
        /// API key of the request.
        api_key: i16,
        /// Version of the request.
        version: Version,
        /// The decode error.
        error: DecodeError,
        /// The raw response frame.
        frame: Bytes,
    },
    /// The response answered another request.
    CorrelationMismatch {
        /// Correlation id sent.
        sent: i32,
        /// Correlation id received.
        received: i32,
    },
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Closed {
                api_key,
                version,
                correlation_id,
            } => write!(
                f,
                "the broker closed the connection instead of answering API {api_key} v{version} \
                 (correlation id {correlation_id}); a broker does that with a request it cannot parse"
            ),
            CallError::Timeout { api_key, version } => write!(
                f,
                "no answer to API {api_key} v{version} within {IO_TIMEOUT:?}"
            ),
            CallError::Io(e) => write!(f, "socket error: {e}"),
            CallError::Encode(e) => write!(f, "cannot encode the request: {e}"),
            CallError::Decode {
                api_key,
                version,
                error,
                frame,
            } => write!(
                f,
                "response to API {api_key} v{version} does not decode: {error}; frame = {}",
                hex(frame)
            ),
            CallError::CorrelationMismatch { sent, received } => {
                write!(f, "sent correlation id {sent}, response carries {received}")
            }
        }
    }
}

impl std::error::Error for CallError {}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One request/response exchange.
#[derive(Debug, Clone)]
pub struct Exchange<R> {
    /// Correlation id of the request (checked equal to the response's).
    pub correlation_id: i32,
    /// Version the request was sent at.
    pub version: Version,
    /// The decoded response header.
    pub header: ResponseHeader,
    /// The decoded response body.
    pub body: R,
    /// The request frame as sent (size prefix included).
    pub request: Bytes,
    /// The response frame as received (size prefix included).
    pub response: Bytes,
}

/// A raw frame that crossed a connection, for replay.
#[derive(Debug, Clone)]
pub struct LoggedFrame {
    /// Which connection (index of [`Connection`]s created by the test, as it numbers them).
    pub conn: usize,
    /// The broker's address.
    pub broker: SocketAddr,
    /// `true` for client → broker.
    pub to_broker: bool,
    /// The frame, size prefix included.
    pub bytes: Bytes,
}

/// A connection to one broker.
pub struct Connection {
    stream: TcpStream,
    peer: SocketAddr,
    id: usize,
    next_correlation_id: i32,
    client_id: Option<Str>,
    /// Every frame sent and received, in order.
    pub log: Vec<LoggedFrame>,
}

impl Connection {
    /// Connects to `addr`, which must be a loopback address, with timeouts on every read and
    /// write. `id` labels the connection in [`Connection::log`].
    pub fn connect(addr: impl ToSocketAddrs, id: usize) -> io::Result<Self> {
        let peer = addr
            .to_socket_addrs()?
            .find(|a| a.ip().is_loopback())
            .ok_or_else(|| io::Error::other("only loopback brokers are allowed in these tests"))?;
        let stream = TcpStream::connect_timeout(&peer, IO_TIMEOUT)?;
        stream.set_read_timeout(Some(IO_TIMEOUT))?;
        stream.set_write_timeout(Some(IO_TIMEOUT))?;
        stream.set_nodelay(true)?;
        Ok(Connection {
            stream,
            peer,
            id,
            next_correlation_id: 1,
            client_id: Some(Str::from_static("kafka-wire-interop")),
            log: Vec::new(),
        })
    }

    /// The broker's address.
    pub fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// The correlation id the next request will carry.
    pub fn next_correlation_id(&self) -> i32 {
        self.next_correlation_id
    }

    /// Sends `body` at `version` and reads and decodes the answer; the response must carry the
    /// request's correlation id and decode with no byte left over.
    pub fn call<Req: ApiMessage, Resp: ApiMessage>(
        &mut self,
        version: Version,
        body: &Req,
    ) -> Result<Exchange<Resp>, CallError> {
        let (request, response) = self.round_trip(version, body)?;
        let correlation_id = i32::from_be_bytes([request[8], request[9], request[10], request[11]]);
        let (header, body) =
            frame::decode_response::<Resp>(&response, version, &DecodeOptions::DEFAULT)
                .map(|d| d.frame)
                .map_err(|error| CallError::Decode {
                    api_key: Req::API_KEY,
                    version,
                    error,
                    frame: response.clone(),
                })?;
        if header.correlation_id != correlation_id {
            return Err(CallError::CorrelationMismatch {
                sent: correlation_id,
                received: header.correlation_id,
            });
        }
        Ok(Exchange {
            correlation_id,
            version,
            header,
            body,
            request,
            response,
        })
    }

    /// Sends one request and returns (request frame, response frame) undecoded.
    pub fn round_trip<Req: ApiMessage>(
        &mut self,
        version: Version,
        body: &Req,
    ) -> Result<(Bytes, Bytes), CallError> {
        let correlation_id = self.next_correlation_id;
        self.next_correlation_id += 1;
        let header = RequestHeader::new(
            Req::API_KEY,
            version,
            correlation_id,
            self.client_id.clone(),
        );
        let mut buf = Vec::new();
        frame::encode_request(&mut buf, &header, body).map_err(CallError::Encode)?;
        let request = Bytes::from(buf);
        io::Write::write_all(&mut self.stream, &request).map_err(CallError::Io)?;
        self.log(true, request.clone());
        let response = self.read_response(Req::API_KEY, version, correlation_id)?;
        self.log(false, response.clone());
        Ok((request, response))
    }

    /// Sends a frame built by hand (it is not checked) and reads one frame back; `api_key`
    /// and `version` only label errors.
    pub fn send_raw(
        &mut self,
        api_key: i16,
        version: Version,
        request: Bytes,
    ) -> Result<Bytes, CallError> {
        let correlation_id = request
            .get(8..12)
            .map_or(-1, |b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]));
        io::Write::write_all(&mut self.stream, &request).map_err(CallError::Io)?;
        self.log(true, request);
        let response = self.read_response(api_key, version, correlation_id)?;
        self.log(false, response.clone());
        Ok(response)
    }

    /// Sends a request of any API (`body` carries it) at `version` and decodes the answer
    /// with the typed codec of that API: same checks as [`call`](Self::call).
    pub fn call_any(
        &mut self,
        version: Version,
        body: &RequestBody,
    ) -> Result<Exchange<ResponseBody>, CallError> {
        let api_key = body.api_key();
        let correlation_id = self.next_correlation_id;
        self.next_correlation_id += 1;
        let request = RequestFrame::new(
            correlation_id,
            self.client_id.clone(),
            version,
            body.clone(),
        )
        .to_bytes()
        .map_err(CallError::Encode)?;
        io::Write::write_all(&mut self.stream, &request).map_err(CallError::Io)?;
        self.log(true, request.clone());
        let response = self.read_response(api_key.key(), version, correlation_id)?;
        self.log(false, response.clone());
        let decoded = ResponseFrame::decode(&response, api_key, version, &DecodeOptions::DEFAULT)
            .map(|d| d.frame)
            .map_err(|error| CallError::Decode {
                api_key: api_key.key(),
                version,
                error,
                frame: response.clone(),
            })?;
        if decoded.header.correlation_id != correlation_id {
            return Err(CallError::CorrelationMismatch {
                sent: correlation_id,
                received: decoded.header.correlation_id,
            });
        }
        Ok(Exchange {
            correlation_id,
            version,
            header: decoded.header,
            body: decoded.body,
            request,
            response,
        })
    }

    /// SASL authentication (KIP-152: SaslHandshake, then SaslAuthenticate frames) with
    /// `mechanism` at the versions the broker offers in `versions`: `PLAIN` (RFC 4616) or
    /// `SCRAM-SHA-256` (RFC 5802, RFC 7677). Returns every exchange's error code and the
    /// session lifetime the broker granted; a rejected login is an `Err` with its message.
    pub fn authenticate(
        &mut self,
        versions: &ApiVersionsResponse,
        mechanism: &str,
        user: &str,
        password: &str,
    ) -> Result<Authenticated, AuthError> {
        let hv = negotiate_key(
            versions,
            ApiKey::SaslHandshake.key(),
            ApiKey::SaslHandshake.request_versions(),
        )
        .ok_or(AuthError::Refused(
            "the broker offers no SaslHandshake version we have".into(),
        ))?;
        let av = negotiate_key(
            versions,
            ApiKey::SaslAuthenticate.key(),
            ApiKey::SaslAuthenticate.request_versions(),
        )
        .ok_or(AuthError::Refused(
            "the broker offers no SaslAuthenticate version we have".into(),
        ))?;
        let hs = self.call::<_, SaslHandshakeResponse>(
            hv,
            &SaslHandshakeRequest {
                mechanism: Str::from(mechanism.to_owned()),
            },
        )?;
        if hs.body.error_code != 0 {
            return Err(AuthError::Refused(format!(
                "SaslHandshake {mechanism}: error {} (the broker offers {:?})",
                hs.body.error_code, hs.body.mechanisms
            )));
        }
        let mut steps = Vec::new();
        let mut step = |conn: &mut Self,
                        bytes: Vec<u8>|
         -> Result<Exchange<SaslAuthenticateResponse>, AuthError> {
            let x = conn.call::<_, SaslAuthenticateResponse>(
                av,
                &SaslAuthenticateRequest {
                    auth_bytes: Bytes::from(bytes),
                    ..Default::default()
                },
            )?;
            if x.body.error_code != 0 {
                return Err(AuthError::Refused(format!(
                    "SaslAuthenticate {mechanism}: error {}: {:?}",
                    x.body.error_code, x.body.error_message
                )));
            }
            steps.push(x.body.error_code);
            Ok(x)
        };
        let last = match mechanism {
            "PLAIN" => step(self, format!("\0{user}\0{password}").into_bytes())?,
            "SCRAM-SHA-256" => {
                let mut scram = crate::scram::ScramSha256::new(user, password);
                let first = step(self, scram.client_first())?;
                let fin = scram
                    .client_final(&first.body.auth_bytes)
                    .map_err(AuthError::Refused)?;
                let last = step(self, fin)?;
                scram
                    .verify_server_final(&last.body.auth_bytes)
                    .map_err(AuthError::Refused)?;
                last
            }
            other => {
                return Err(AuthError::Refused(format!(
                    "mechanism {other} not implemented here"
                )))
            }
        };
        Ok(Authenticated {
            handshake_version: hv,
            authenticate_version: av,
            session_lifetime_ms: last.body.session_lifetime_ms,
        })
    }

    fn read_response(
        &mut self,
        api_key: i16,
        version: Version,
        correlation_id: i32,
    ) -> Result<Bytes, CallError> {
        frame::read_frame(&mut self.stream, &DecodeOptions::DEFAULT).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe => CallError::Closed {
                api_key,
                version,
                correlation_id,
            },
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
                CallError::Timeout { api_key, version }
            }
            _ => CallError::Io(e),
        })
    }

    fn log(&mut self, to_broker: bool, bytes: Bytes) {
        self.log.push(LoggedFrame {
            conn: self.id,
            broker: self.peer,
            to_broker,
            bytes,
        });
    }

    /// ApiVersions as a client does it: first at `first` (a client's highest); if the broker
    /// answers UNSUPPORTED_VERSION, again at v0, which every broker answers (KIP-511), and then
    /// at the highest version both sides support.
    ///
    /// The UNSUPPORTED_VERSION answer is only read as far as its error code (the first two
    /// body bytes, the same at every version): brokers disagree on its layout (Kafka writes a
    /// v0 body, librdkafka's mock a flexible one).
    pub fn api_versions(&mut self, first: Version) -> Result<ApiVersionsOutcome, CallError> {
        let req = ApiVersionsRequest {
            client_software_name: "kafka-wire-interop".into(),
            client_software_version: "0.1.0".into(),
            ..Default::default()
        };
        let mut rejected = Vec::new();
        let (request, response) = self.round_trip(first, &req)?;
        match frame::decode_response::<ApiVersionsResponse>(
            &response,
            first,
            &DecodeOptions::DEFAULT,
        )
        .map(|d| d.frame)
        {
            Ok((header, body)) if body.error_code == 0 => {
                return Ok(ApiVersionsOutcome {
                    rejected,
                    accepted: Exchange {
                        correlation_id: header.correlation_id,
                        version: first,
                        header,
                        body,
                        request,
                        response,
                    },
                })
            }
            _ => {
                let code = response
                    .get(8..10)
                    .map(|b| i16::from_be_bytes([b[0], b[1]]))
                    .unwrap_or(-1);
                rejected.push((first, code, response.clone()));
                if code != UNSUPPORTED_VERSION {
                    return Err(CallError::Decode {
                        api_key: 18,
                        version: first,
                        error: DecodeError::new(
                            kafka_wire::DecodeErrorKind::InvalidValue(
                                "ApiVersions failed with an error other than UNSUPPORTED_VERSION",
                            ),
                            8,
                        ),
                        frame: response,
                    });
                }
            }
        }
        let v0 = self.call::<_, ApiVersionsResponse>(0, &req)?;
        let best = negotiate(&v0.body, &req).unwrap_or(0);
        if best == 0 {
            return Ok(ApiVersionsOutcome {
                rejected,
                accepted: v0,
            });
        }
        rejected.push((0, v0.body.error_code, v0.response.clone()));
        let accepted = self.call::<_, ApiVersionsResponse>(best, &req)?;
        Ok(ApiVersionsOutcome { rejected, accepted })
    }
}

/// What [`Connection::api_versions`] went through.
#[derive(Debug, Clone)]
pub struct ApiVersionsOutcome {
    /// Attempts before the last one: (version, error code, response frame). A v0 attempt used
    /// only to learn the broker's range has error code 0.
    pub rejected: Vec<(Version, i16, Bytes)>,
    /// The last, successful exchange.
    pub accepted: Exchange<ApiVersionsResponse>,
}

/// The highest version of `M`'s API that both we (the derive's `versions`) and the broker
/// (its ApiVersions answer) support, or `None`.
pub fn negotiate<M: ApiMessage>(broker: &ApiVersionsResponse, _example: &M) -> Option<Version> {
    negotiate_key(broker, M::API_KEY, M::META.versions)
}

/// [`negotiate`] by key and our version range.
pub fn negotiate_key(
    broker: &ApiVersionsResponse,
    api_key: i16,
    ours: kafka_wire::VersionRange,
) -> Option<Version> {
    let theirs = broker.api_keys.iter().find(|k| k.api_key == api_key)?;
    let max = theirs.max_version.min(ours.max()?);
    let min = theirs.min_version.max(ours.min()?);
    (min <= max).then_some(max)
}

/// What [`Connection::authenticate`] established.
#[derive(Debug, Clone, Copy)]
pub struct Authenticated {
    /// SaslHandshake version used.
    pub handshake_version: Version,
    /// SaslAuthenticate version used.
    pub authenticate_version: Version,
    /// The session lifetime the broker granted (0: none).
    pub session_lifetime_ms: i64,
}

/// Why [`Connection::authenticate`] failed.
#[derive(Debug)]
pub enum AuthError {
    /// An exchange failed.
    Call(CallError),
    /// The broker refused (or the server's SCRAM proof was wrong): what happened.
    Refused(String),
}

impl From<CallError> for AuthError {
    fn from(e: CallError) -> Self {
        AuthError::Call(e)
    }
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthError::Call(e) => write!(f, "{e}"),
            AuthError::Refused(m) => write!(f, "authentication refused: {m}"),
        }
    }
}

impl std::error::Error for AuthError {}

/// A request body of `api` at `version` from Kafka-style JSON ([`kafka_wire::json`]: field
/// names in lowerCamelCase, missing fields at their defaults), as the typed body of that API:
/// the JSON is checked against the API's schema at `version` and read by the typed codec.
pub fn request_from_json(
    api: ApiKey,
    version: Version,
    json: &serde_json::Value,
) -> Result<RequestBody, String> {
    let v = kafka_wire::json::struct_from_json(api.request_meta(), json, version)
        .map_err(|e| format!("{} v{version} request JSON: {e}", api.name()))?;
    let bytes = Bytes::from(
        kafka_wire::dynamic::encode(&v, version)
            .map_err(|e| format!("{} v{version}: {e}", api.name()))?,
    );
    let mut r = kafka_wire::Reader::new(&bytes);
    let body = RequestBody::decode(api, version, &mut r)
        .map_err(|e| format!("{} v{version}: {e}", api.name()))?;
    if r.remaining() != 0 {
        return Err(format!("{} v{version}: bytes left over", api.name()));
    }
    Ok(body)
}

/// A response body as Kafka-style JSON at `version` (the fields that version has).
pub fn response_to_json(
    body: &ResponseBody,
    version: Version,
) -> Result<serde_json::Value, String> {
    let bytes = Bytes::from(
        body.to_vec(version)
            .map_err(|e| format!("{:?} v{version}: {e}", body.api_key()))?,
    );
    let v = kafka_wire::dynamic::decode(body.meta(), &bytes, version)
        .map_err(|e| format!("{:?} v{version}: {e}", body.api_key()))?;
    Ok(kafka_wire::json::struct_to_json(&v, version))
}
