//! Run-time dispatch over the declared APIs: [`ApiKey`], the [`RequestBody`] and
//! [`ResponseBody`] enums, and whole frames ([`RequestFrame`], [`ResponseFrame`]), all
//! declared by [`apis!`](crate::apis), which users call for their own lists of APIs.

// The methods of `RequestBody` and `ResponseBody` of `apis!`: one template for both sides.
#[doc(hidden)]
#[macro_export]
macro_rules! __body_impl {
    ($body:ident, $side:literal, $( $variant:ident => $msg:ty ),*; $( $known:ident ),*) => {
        impl $body {
            /// The API of this body.
            pub fn api_key(&self) -> ApiKey {
                match self {
                    $( $body::$variant(_) => ApiKey::$variant, )*
                }
            }

            /// Encodes the body (no header, no size prefix) at `version`: all or nothing, into
            /// every buffer, as [`KafkaMessage::encode`](kafka_wire::KafkaMessage::encode).
            pub fn encode<B: $crate::__private::kafka_wire::EncodeBuf + ?Sized>(
                &self,
                buf: &mut B,
                version: $crate::__private::Version,
            ) -> Result<(), $crate::__private::EncodeError> {
                match self {
                    $( $body::$variant(m) => <$msg as $crate::__private::KafkaMessage>::encode(m, buf, version), )*
                }
            }

            /// Appends the body at `version` to a growable buffer, restored to its previous
            /// length on any error (as [`encode`](Self::encode) does for every buffer).
            pub fn encode_append<B: $crate::__private::kafka_wire::Rewind + ?Sized>(
                &self,
                buf: &mut B,
                version: $crate::__private::Version,
            ) -> Result<(), $crate::__private::EncodeError> {
                self.encode(buf, version)
            }

            /// The exact number of bytes [`encode`](Self::encode) writes at `version`.
            pub fn encoded_size(&self, version: $crate::__private::Version) -> usize {
                match self {
                    $( $body::$variant(m) => <$msg as $crate::__private::KafkaMessage>::encoded_size(m, version), )*
                }
            }

            #[doc = concat!("Decodes the ", $side, " body of `api_key` at `version` from the reader's position.")]
            ///
            #[doc = concat!("A version outside the API's ", $side, " versions is `UnsupportedVersion`.")]
            pub fn decode(
                api_key: ApiKey,
                version: $crate::__private::Version,
                r: &mut $crate::__private::Reader<'_>,
            ) -> Result<Self, $crate::__private::DecodeError> {
                match api_key {
                    $( ApiKey::$variant => <$msg as $crate::__private::KafkaMessage>::decode(r, version).map($body::$variant), )*
                    $( ApiKey::$known => Err($crate::__private::not_compiled(
                        api_key.name(),
                        api_key.__facts().features,
                        r.position(),
                    )), )*
                }
            }

            #[doc = concat!("The allocation ratio `k` of the ", $side, " body of `api_key` at `version`: decoding")]
            /// `n` bytes of it allocates at most `k·n` bytes plus a constant (see
            /// [`Field::alloc_ratio`](kafka_wire::Field::alloc_ratio)).
            pub fn alloc_ratio(api_key: ApiKey, version: $crate::__private::Version) -> usize {
                let cx = $crate::__private::kafka_wire::Cx::new(version);
                match api_key {
                    $( ApiKey::$variant => <$msg as $crate::__private::kafka_wire::Field>::alloc_ratio(cx), )*
                    // Not compiled in: decoding fails before allocating anything.
                    $( ApiKey::$known => 0, )*
                }
            }

            #[doc = concat!("The default (empty) ", $side, " body of `api_key`, or `None` if the API is not")]
            /// compiled in (see [`ApiKey::is_compiled`]).
            pub fn try_default_for(api_key: ApiKey) -> Option<Self> {
                match api_key {
                    $( ApiKey::$variant => Some($body::$variant(<$msg>::default())), )*
                    $( ApiKey::$known => None, )*
                }
            }
        }
    };
}

/// Declares the run-time dispatch over a list of APIs: an `ApiKey` enum, `RequestBody` and
/// `ResponseBody` enums, `RequestFrame` / `ResponseFrame` (whole frames, decoded by API key
/// and version), and `Apis`, the list as a [`kafka_wire::frame::ApiSet`] (what the runtime's
/// one frame decode path decodes those frames against), in the module where it is called.
///
/// This crate's own [`ApiKey`](crate::ApiKey), [`RequestBody`](crate::RequestBody),
/// [`ResponseBody`](crate::ResponseBody), [`RequestFrame`](crate::RequestFrame) and
/// [`ResponseFrame`](crate::ResponseFrame) are one call of it: their documentation lists every
/// method the call declares. Call it in a module of your own with the APIs you declared with
/// `#[derive(KafkaMessage)]` (an API this crate does not ship, or your own version of one),
/// plus any of the shipped ones you want, by path. Each line is
/// `Variant = api_key => RequestType, ResponseType;`, optionally preceded by doc comments;
/// the request and response types must implement `KafkaMessage`, `Debug`, `Clone`,
/// `PartialEq` and `Default`.
///
/// To include every API this crate ships, start the list with `use shipped;`: the call then
/// declares the shipped APIs (as [`ApiKey`](crate::ApiKey) does, same variant names), then
/// yours. Your APIs' keys and variant names must then differ from the shipped ones (a repeated
/// key is a compile error); for your own version of a shipped API, list the shipped ones you
/// want by path instead, as in the first example.
///
/// `use shipped;` expands through a chain of about 50 nested macros (one per run of shipped
/// APIs with the same cargo features: a `cfg` in a macro's output would be checked against
/// your crate's features, so each link is declared once per feature state). Each level counts
/// against rustc's `recursion_limit` (128 by default), which leaves at least 64 levels for
/// macros of your own around the call (tested); a deeper wrapper, such as a recursive macro
/// that emits the call after many steps, needs `#![recursion_limit = "256"]` in your crate.
///
/// ```
/// mod my_apis {
///     use kafka_wire::{KafkaMessage, Str, UnknownTaggedFields};
///
///     /// Heartbeat v0-v4, as Kafka's HeartbeatRequest.json declares it.
///     #[derive(KafkaMessage, Debug, Clone, PartialEq)]
///     #[kafka(api_key = 12, request, versions = "0-4", flexible = "4+")]
///     pub struct HeartbeatRequest {
///         /// The group id.
///         #[kafka(versions = "0+", entity_type = "groupId")]
///         pub group_id: Str,
///         /// The generation of the group.
///         #[kafka(versions = "0+")]
///         pub generation_id: i32,
///         /// The member id.
///         #[kafka(versions = "0+")]
///         pub member_id: Str,
///         /// The unique identifier of the consumer instance provided by end user.
///         #[kafka(versions = "3+", nullable = "3+", default = "null")]
///         pub group_instance_id: Option<Str>,
///         /// Tagged fields this struct does not declare.
///         pub unknown_tagged_fields: UnknownTaggedFields,
///     }
///
///     /// HeartbeatResponse v0-v4.
///     #[derive(KafkaMessage, Debug, Clone, PartialEq)]
///     #[kafka(api_key = 12, response, versions = "0-4", flexible = "4+")]
///     pub struct HeartbeatResponse {
///         /// The duration in milliseconds for which the request was throttled.
///         #[kafka(versions = "1+", ignorable)]
///         pub throttle_time_ms: i32,
///         /// The error code, or 0 if there was no error.
///         #[kafka(versions = "0+")]
///         pub error_code: i16,
///         /// Tagged fields this struct does not declare.
///         pub unknown_tagged_fields: UnknownTaggedFields,
///     }
///
///     kafka_wire_messages::apis! {
///         /// ApiVersions (18), as this crate ships it.
///         ApiVersions = 18 => kafka_wire_messages::ApiVersionsRequest, kafka_wire_messages::ApiVersionsResponse;
///         /// Heartbeat (12), declared above.
///         Heartbeat = 12 => HeartbeatRequest, HeartbeatResponse;
///     }
/// }
///
/// use kafka_wire::Bytes;
/// use kafka_wire::frame::DecodeOptions;
/// use my_apis::{ApiKey, HeartbeatRequest, RequestBody, RequestFrame};
///
/// // Heartbeat v3 from group "g", generation 1, member "m", null instance id, laid out by
/// // hand from Kafka's HeartbeatRequest.json (header v1, correlation id 7, client id "c").
/// let wire = Bytes::from_static(
///     b"\x00\x00\x00\x17\x00\x0c\x00\x03\x00\x00\x00\x07\x00\x01c\
///       \x00\x01g\x00\x00\x00\x01\x00\x01m\xff\xff",
/// );
/// let frame = RequestFrame::decode(&wire, &DecodeOptions::DEFAULT).unwrap().frame;
/// assert_eq!(frame.api_key(), ApiKey::Heartbeat);
/// let RequestBody::Heartbeat(hb) = &frame.body else { panic!("not a heartbeat") };
/// assert_eq!((&*hb.group_id, hb.generation_id), ("g", 1));
/// assert_eq!(frame.to_vec().unwrap(), &wire[..]);
/// assert_eq!(ApiKey::from_i16(18), Some(ApiKey::ApiVersions));
/// assert_eq!(ApiKey::from_i16(0), None); // Produce is not in this list
/// ```
///
/// Every shipped API plus one of your own, with one switch:
///
/// ```
/// mod all_apis {
///     use kafka_wire::{KafkaMessage, Str, UnknownTaggedFields};
///
///     /// A private API of this deployment, on a key Kafka does not use.
///     #[derive(KafkaMessage, Debug, Clone, PartialEq)]
///     #[kafka(api_key = 30000, request, versions = "0", flexible = "0+")]
///     pub struct EchoRequest {
///         /// What to echo.
///         #[kafka(versions = "0+")]
///         pub text: Str,
///         /// Tagged fields this struct does not declare.
///         pub unknown_tagged_fields: UnknownTaggedFields,
///     }
///
///     /// The answer to an [`EchoRequest`].
///     #[derive(KafkaMessage, Debug, Clone, PartialEq)]
///     #[kafka(api_key = 30000, response, versions = "0", flexible = "0+")]
///     pub struct EchoResponse {
///         /// The text echoed.
///         #[kafka(versions = "0+")]
///         pub text: Str,
///         /// Tagged fields this struct does not declare.
///         pub unknown_tagged_fields: UnknownTaggedFields,
///     }
///
///     kafka_wire_messages::apis! {
///         use shipped;
///         /// Echo (30000), declared above.
///         Echo = 30000 => EchoRequest, EchoResponse;
///     }
/// }
///
/// use kafka_wire::frame::DecodeOptions;
/// use all_apis::{ApiKey, EchoRequest, RequestBody, RequestFrame};
///
/// // Every shipped API is there, under the shipped names, and Echo after them.
/// assert_eq!(ApiKey::ALL.len(), kafka_wire_messages::ApiKey::ALL.len() + 1);
/// assert_eq!(ApiKey::from_i16(3), Some(ApiKey::Metadata));
/// assert_eq!(ApiKey::from_i16(30000), Some(ApiKey::Echo));
///
/// // A shipped API's frame decodes through this dispatch as through the shipped one.
/// let metadata = kafka_wire_messages::RequestFrame::new(
///     1, None, 12, kafka_wire_messages::MetadataRequest::default(),
/// );
/// let bytes = metadata.to_bytes().unwrap();
/// let back = RequestFrame::decode(&bytes, &DecodeOptions::DEFAULT).unwrap().frame;
/// assert!(matches!(back.body, RequestBody::Metadata(_)));
/// assert_eq!(back.to_bytes().unwrap(), bytes);
///
/// // So does our own: v0, header v2, correlation id 2, no client id; text "hi".
/// let echo = RequestFrame::new(2, None, 0, EchoRequest { text: "hi".into(), ..Default::default() });
/// let bytes = echo.to_bytes().unwrap();
/// assert_eq!(&bytes[..], b"\x00\x00\x00\x0f\x75\x30\x00\x00\x00\x00\x00\x02\xff\xff\x00\x03hi\x00");
/// assert_eq!(RequestFrame::decode(&bytes, &DecodeOptions::DEFAULT).unwrap().frame, echo);
/// ```
#[macro_export]
macro_rules! apis {
    (use shipped; $($rest:tt)*) => {
        $crate::__shipped_apis! { $($rest)* }
    };
    // What the shipped list hands over: every shipped key (with its docs), the shipped APIs
    // compiled in (request and response types), those known but not compiled in (their facts),
    // then the caller's own lines.
    (@shipped [$($keys:tt)*] [$($compiled:tt)*] [$($known:tt)*]
        $( $(#[$doc:meta])* $variant:ident = $key:literal => $req:ty, $resp:ty; )*) => {
        $crate::__apis_impl! {
            [$($keys)* $( $(#[$doc])* $variant = $key; )*]
            [$($compiled)* $( $variant => $req, $resp; )*]
            [$($known)*]
        }
    };
    ($( $(#[$doc:meta])* $variant:ident = $key:literal => $req:ty, $resp:ty; )*) => {
        $crate::__apis_impl! {
            [$( $(#[$doc])* $variant = $key; )*]
            [$( $variant => $req, $resp; )*]
            []
        }
    };
}

// The methods that need every API of the list compiled in: declared only when none is left
// out by the crate's features (always, for a list of the caller's own APIs).
#[doc(hidden)]
#[macro_export]
macro_rules! __total_impl {
    ([] $( $variant:ident => $req:ty, $resp:ty; )*) => {
        impl ApiKey {
            /// The request struct's metadata.
            ///
            /// Declared when every API of the list is compiled in (this crate's `all` feature);
            /// [`try_request_meta`](Self::try_request_meta) works with any features.
            pub fn request_meta(self) -> &'static $crate::__private::StructMeta {
                match self {
                    $( ApiKey::$variant => <$req as $crate::__private::KafkaMessage>::META, )*
                }
            }

            /// The response struct's metadata (declared as [`request_meta`](Self::request_meta) is).
            pub fn response_meta(self) -> &'static $crate::__private::StructMeta {
                match self {
                    $( ApiKey::$variant => <$resp as $crate::__private::KafkaMessage>::META, )*
                }
            }
        }

        impl RequestBody {
            /// The default (empty) request body of `api_key` (declared when every API of the list
            /// is compiled in; see [`try_default_for`](Self::try_default_for)).
            pub fn default_for(api_key: ApiKey) -> Self {
                match api_key {
                    $( ApiKey::$variant => RequestBody::$variant(<$req>::default()), )*
                }
            }
        }

        impl ResponseBody {
            /// The default (empty) response body of `api_key` (declared when every API of the
            /// list is compiled in; see [`try_default_for`](Self::try_default_for)).
            pub fn default_for(api_key: ApiKey) -> Self {
                match api_key {
                    $( ApiKey::$variant => ResponseBody::$variant(<$resp>::default()), )*
                }
            }
        }
    };
    ([$($known:tt)+] $($compiled:tt)*) => {};
}

// The body of `apis!`: `ApiKey` over every key, the bodies and frames over the APIs compiled in.
#[doc(hidden)]
#[macro_export]
macro_rules! __apis_impl {
    (
        [$( $(#[$doc:meta])* $variant:ident = $key:literal; )*]
        [$( $cv:ident => $req:ty, $resp:ty; )*]
        [$( $kv:ident => $facts:expr; )*]
    ) => {
        /// An API, by its Kafka API key: every API this crate knows, compiled in or not (see
        /// [`is_compiled`](ApiKey::is_compiled)).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(i16)]
        pub enum ApiKey {
            $( $(#[$doc])* $variant = $key, )*
        }

        impl ApiKey {
            /// Every declared API, in the order listed (the shipped ones first, by key, after
            /// `use shipped;`).
            pub const ALL: &'static [ApiKey] = &[$(ApiKey::$variant),*];

            /// The API with key `key`, or `None` if this crate does not declare it.
            pub const fn from_i16(key: i16) -> Option<ApiKey> {
                match key {
                    $( $key => Some(ApiKey::$variant), )*
                    _ => None,
                }
            }

            /// The API key as on the wire.
            pub const fn key(self) -> i16 {
                self as i16
            }

            /// The API's name, as Kafka spells it (`"TxnOffsetCommit"`).
            pub const fn name(self) -> &'static str {
                match self {
                    $( ApiKey::$variant => stringify!($variant), )*
                }
            }

            /// Whether this build compiles the API's types in: always for a list of your own
            /// APIs; for this crate's, when one of the API's cargo features is on (see the
            /// crate's `features` module). The frames of an API that is not compiled in do not
            /// decode (`ApiNotCompiled`) and pass through [`AnyRequest`](crate::AnyRequest) as
            /// opaque bytes; its key, name and versions are known all the same.
            pub fn is_compiled(self) -> bool {
                match self {
                    $( ApiKey::$cv => true, )*
                    $( ApiKey::$kv => false, )*
                }
            }

            /// The request struct's metadata, or `None` if the API is not compiled in.
            pub fn try_request_meta(self) -> Option<&'static $crate::__private::StructMeta> {
                match self {
                    $( ApiKey::$cv => Some(<$req as $crate::__private::KafkaMessage>::META), )*
                    $( ApiKey::$kv => None, )*
                }
            }

            /// The response struct's metadata, or `None` if the API is not compiled in.
            pub fn try_response_meta(self) -> Option<&'static $crate::__private::StructMeta> {
                match self {
                    $( ApiKey::$cv => Some(<$resp as $crate::__private::KafkaMessage>::META), )*
                    $( ApiKey::$kv => None, )*
                }
            }

            /// Versions, flexible versions and features of the API, whether compiled in or not.
            #[doc(hidden)]
            pub fn __facts(self) -> $crate::__private::ApiFacts {
                match self {
                    $( ApiKey::$cv => $crate::__private::ApiFacts::of(
                        <$req as $crate::__private::KafkaMessage>::META,
                        <$resp as $crate::__private::KafkaMessage>::META,
                    ), )*
                    $( ApiKey::$kv => $facts, )*
                }
            }
        }

        $crate::__total_impl! { [$($kv)*] $( $cv => $req, $resp; )* }

        /// The body of a request of any API compiled in.
        #[derive(Debug, Clone, PartialEq)]
        pub enum RequestBody {
            $(
                #[doc = concat!("The request of [`ApiKey::", stringify!($cv), "`].")]
                $cv($req),
            )*
        }

        /// The body of a response of any API compiled in.
        #[derive(Debug, Clone, PartialEq)]
        pub enum ResponseBody {
            $(
                #[doc = concat!("The response of [`ApiKey::", stringify!($cv), "`].")]
                $cv($resp),
            )*
        }

        $crate::__body_impl!(RequestBody, "request", $( $cv => $req ),*; $( $kv ),*);
        $crate::__body_impl!(ResponseBody, "response", $( $cv => $resp ),*; $( $kv ),*);

        $(
            impl From<$req> for RequestBody {
                fn from(m: $req) -> Self {
                    RequestBody::$cv(m)
                }
            }

            impl From<$resp> for ResponseBody {
                fn from(m: $resp) -> Self {
                    ResponseBody::$cv(m)
                }
            }
        )*

        impl ApiKey {
            /// Versions of the request (`validVersions`).
            pub fn request_versions(self) -> $crate::__private::VersionRange {
                self.__facts().request
            }

            /// Versions of the response (`validVersions`).
            pub fn response_versions(self) -> $crate::__private::VersionRange {
                self.__facts().response
            }

            /// The lowest request version. An API's versions are never empty, so this needs no
            /// unwrapping.
            pub fn min_version(self) -> $crate::__private::Version {
                self.request_versions().min().unwrap_or(0)
            }

            /// The highest request version, unstable or not (see
            /// [`usable_versions`](Self::usable_versions)).
            pub fn max_version(self) -> $crate::__private::Version {
                self.request_versions().max().unwrap_or(0)
            }

            /// The versions to offer a broker: the request versions, without the highest one
            /// when Kafka marks it unstable (`latestVersionUnstable`) unless `unstable` is set
            /// (brokers only accept it when configured to).
            pub fn usable_versions(self, unstable: bool) -> $crate::__private::VersionRange {
                let facts = self.__facts();
                match facts.unstable {
                    Some(top) if !unstable => $crate::__private::VersionRange::new(self.min_version(), top - 1),
                    _ => facts.request,
                }
            }

            /// For every API of this list compiled in, the highest version `broker` also
            /// supports (see `kafka_wire_messages::negotiate::negotiate`); unstable versions only
            /// when `unstable` is set.
            pub fn negotiate(
                broker: &$crate::ApiVersionsResponse,
                unstable: bool,
            ) -> $crate::negotiate::Negotiated {
                $crate::negotiate::negotiate(
                    broker,
                    ApiKey::ALL
                        .iter()
                        .filter(|api| api.is_compiled())
                        .map(|&api| (api.key(), api.usable_versions(unstable))),
                )
            }

            /// Flexible versions of the request.
            pub fn request_flexible_versions(self) -> $crate::__private::VersionRange {
                self.__facts().request_flexible
            }

            /// Flexible versions of the response.
            pub fn response_flexible_versions(self) -> $crate::__private::VersionRange {
                self.__facts().response_flexible
            }

            /// The request header version for a request at `version`: 2 if flexible, else 1.
            pub fn request_header_version(self, version: $crate::__private::Version) -> $crate::__private::Version {
                $crate::__private::kafka_wire::request_header_version(self.request_flexible_versions(), version)
            }

            /// The response header version for a response at `version`: 1 if flexible, else 0;
            /// always 0 for ApiVersions (KIP-511).
            pub fn response_header_version(self, version: $crate::__private::Version) -> $crate::__private::Version {
                $crate::__private::kafka_wire::response_header_version(self.key(), self.response_flexible_versions(), version)
            }

            /// `from_i16`, as a decode error (`UnknownApiKey`, at offset 0) for an undeclared key.
            pub fn try_from_i16(key: i16) -> Result<ApiKey, $crate::__private::DecodeError> {
                ApiKey::from_i16(key)
                    .ok_or_else(|| $crate::__private::DecodeError::new($crate::__private::DecodeErrorKind::UnknownApiKey(key), 0))
            }
        }

        impl TryFrom<i16> for ApiKey {
            type Error = $crate::__private::DecodeError;
            fn try_from(key: i16) -> Result<Self, Self::Error> {
                ApiKey::try_from_i16(key)
            }
        }

        impl From<ApiKey> for i16 {
            fn from(k: ApiKey) -> i16 {
                k.key()
            }
        }

        impl $crate::__private::fmt::Display for ApiKey {
            fn fmt(&self, f: &mut $crate::__private::fmt::Formatter<'_>) -> $crate::__private::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl RequestBody {
            /// The request struct's metadata.
            pub fn meta(&self) -> &'static $crate::__private::StructMeta {
                match self {
                    $( RequestBody::$cv(_) => <$req as $crate::__private::KafkaMessage>::META, )*
                }
            }

            /// The response failing this request with `error` at `version`, as Java's
            /// `AbstractRequest.getErrorResponse` gives it: every field at its default, every
            /// top-level error code `version` has set to `error`
            /// ([`ApiMessage::set_error_code`](kafka_wire::ApiMessage::set_error_code)), the
            /// other fields Java sets for some APIs (an unknown coordinator's `-1`, an
            /// `error_message` null or Java's message), and the entries the request names, each
            /// with the error: topics and partitions for Produce, Fetch (below v13), Metadata,
            /// ListOffsets, OffsetCommit and OffsetFetch, coordinator keys for FindCoordinator,
            /// groups for DescribeGroups, topics for CreateTopics and DeleteTopics.
            ///
            /// `messages/tests/error_responses.rs` checks it byte for byte against Java's own
            /// error responses: to the empty request of every API and version, and to requests
            /// naming entries for the ten APIs above. Other APIs whose requests name entries
            /// (DeleteGroups, DescribeConfigs, ...) get the error at the top level only, where
            /// their response has it: add the entries Java would list to the body.
            pub fn error_response(&self, version: $crate::__private::Version, error: $crate::__private::kafka_wire::ErrorCode) -> ResponseBody {
                match self {
                    $( RequestBody::$cv(request) => {
                        let mut body = <$resp as $crate::__private::Default>::default();
                        <$resp as $crate::__private::kafka_wire::ApiMessage>::set_error_code(&mut body, version, error);
                        $crate::answer::java_error_fill(request, &mut body, version, error);
                        ResponseBody::$cv(body)
                    } )*
                }
            }

            /// Encodes into a new vector at `version`.
            pub fn to_vec(&self, version: $crate::__private::Version) -> Result<Vec<u8>, $crate::__private::EncodeError> {
                // Written to the scratch vector, then copied: one allocation of the exact
                // size, no size pass.
                let mut out = Vec::new();
                $crate::__private::kafka_wire::__private::put_staged(&mut out, |s| self.encode(s, version))?;
                Ok(out)
            }

            /// Encodes into a new `Bytes` at `version`.
            pub fn to_bytes(&self, version: $crate::__private::Version) -> Result<$crate::__private::Bytes, $crate::__private::EncodeError> {
                self.to_vec(version).map($crate::__private::Bytes::from)
            }
        }

        impl ResponseBody {
            /// The response struct's metadata.
            pub fn meta(&self) -> &'static $crate::__private::StructMeta {
                match self {
                    $( ResponseBody::$cv(_) => <$resp as $crate::__private::KafkaMessage>::META, )*
                }
            }

            /// Encodes into a new vector at `version`.
            pub fn to_vec(&self, version: $crate::__private::Version) -> Result<Vec<u8>, $crate::__private::EncodeError> {
                // Written to the scratch vector, then copied: one allocation of the exact
                // size, no size pass.
                let mut out = Vec::new();
                $crate::__private::kafka_wire::__private::put_staged(&mut out, |s| self.encode(s, version))?;
                Ok(out)
            }

            /// Encodes into a new `Bytes` at `version`.
            pub fn to_bytes(&self, version: $crate::__private::Version) -> Result<$crate::__private::Bytes, $crate::__private::EncodeError> {
                self.to_vec(version).map($crate::__private::Bytes::from)
            }
        }

        /// The APIs of this list as one [`ApiSet`](kafka_wire::frame::ApiSet): what the
        /// runtime's one frame decode path (`frame::decode_request_in`,
        /// `decode_response_in`) decodes [`RequestFrame`]s and [`ResponseFrame`]s against.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
        pub struct Apis;

        impl $crate::__private::frame::ApiSet for Apis {
            type Api = ApiKey;
            type RequestHeader = $crate::__private::RequestHeader;
            type ResponseHeader = $crate::__private::ResponseHeader;
            type Request = RequestBody;
            type Response = ResponseBody;
            type RequestFrame = RequestFrame;
            type ResponseFrame = ResponseFrame;

            /// The API, if declared and compiled in at `version`: else `UnknownApiKey` or
            /// `ApiNotCompiled` at the key (offset 4), `UnsupportedVersion` at the version (6).
            fn request_api(&mut self, key: i16, version: $crate::__private::Version) -> Result<ApiKey, $crate::__private::DecodeError> {
                let api = ApiKey::from_i16(key).ok_or_else(|| {
                    $crate::__private::DecodeError::new($crate::__private::DecodeErrorKind::UnknownApiKey(key), 4)
                        .in_field("request_api_key")
                        .in_part("header")
                })?;
                if !api.is_compiled() {
                    return Err($crate::__private::not_compiled(api.name(), api.__facts().features, 4)
                        .in_field("request_api_key")
                        .in_part("header"));
                }
                if !api.request_versions().contains(version) {
                    return Err($crate::__private::unsupported(api.name(), version, 6)
                        .in_field("request_api_version")
                        .in_part("header"));
                }
                Ok(api)
            }

            /// The API, if declared and compiled in with `version` among its response
            /// versions: else an error at offset 4.
            fn response_api(&mut self, key: i16, version: $crate::__private::Version) -> Result<ApiKey, $crate::__private::DecodeError> {
                let api = ApiKey::from_i16(key).ok_or_else(|| {
                    $crate::__private::DecodeError::new($crate::__private::DecodeErrorKind::UnknownApiKey(key), 4)
                })?;
                if !api.is_compiled() {
                    return Err($crate::__private::not_compiled(api.name(), api.__facts().features, 4));
                }
                if !api.response_versions().contains(version) {
                    return Err($crate::__private::unsupported(api.name(), version, 4));
                }
                Ok(api)
            }

            fn request_header_version(&self, api: ApiKey, version: $crate::__private::Version) -> $crate::__private::Version {
                api.request_header_version(version)
            }

            fn response_header_version(&self, api: ApiKey, version: $crate::__private::Version) -> $crate::__private::Version {
                api.response_header_version(version)
            }

            fn decode_request_header(
                &mut self,
                header_version: $crate::__private::Version,
                r: &mut $crate::__private::Reader<'_>,
            ) -> Result<$crate::__private::RequestHeader, $crate::__private::DecodeError> {
                <$crate::__private::RequestHeader as $crate::__private::KafkaMessage>::decode(r, header_version)
            }

            fn decode_response_header(
                &mut self,
                header_version: $crate::__private::Version,
                r: &mut $crate::__private::Reader<'_>,
            ) -> Result<$crate::__private::ResponseHeader, $crate::__private::DecodeError> {
                <$crate::__private::ResponseHeader as $crate::__private::KafkaMessage>::decode(r, header_version)
            }

            fn decode_request(
                &mut self,
                api: ApiKey,
                version: $crate::__private::Version,
                r: &mut $crate::__private::Reader<'_>,
            ) -> Result<RequestBody, $crate::__private::DecodeError> {
                RequestBody::decode(api, version, r)
            }

            fn decode_response(
                &mut self,
                api: ApiKey,
                version: $crate::__private::Version,
                r: &mut $crate::__private::Reader<'_>,
            ) -> Result<ResponseBody, $crate::__private::DecodeError> {
                ResponseBody::decode(api, version, r)
            }

            fn encode_request(
                &self,
                body: &RequestBody,
                version: $crate::__private::Version,
                out: &mut Vec<u8>,
            ) -> Result<(), $crate::__private::EncodeError> {
                body.encode(out, version)
            }

            fn encode_response(
                &self,
                body: &ResponseBody,
                version: $crate::__private::Version,
                out: &mut Vec<u8>,
            ) -> Result<(), $crate::__private::EncodeError> {
                body.encode(out, version)
            }

            fn request_frame(
                &mut self,
                _: ApiKey,
                _: $crate::__private::Version,
                header: $crate::__private::RequestHeader,
                body: RequestBody,
            ) -> RequestFrame {
                RequestFrame { header, body }
            }

            fn response_frame(
                &mut self,
                api_key: ApiKey,
                version: $crate::__private::Version,
                header: $crate::__private::ResponseHeader,
                body: ResponseBody,
            ) -> ResponseFrame {
                ResponseFrame { header, api_key, version, body }
            }
        }

        /// A whole request: header and body. The API and version are the header's.
        #[derive(Debug, Clone, PartialEq)]
        pub struct RequestFrame {
            /// The request header (`request_api_key` must match the body's API).
            pub header: $crate::__private::RequestHeader,
            /// The request body, encoded at `header.request_api_version`.
            pub body: RequestBody,
        }

        impl RequestFrame {
            /// A request of `body`'s API at `version`, with a header filled in to match.
            pub fn new(
                correlation_id: i32,
                client_id: Option<$crate::__private::Str>,
                version: $crate::__private::Version,
                body: impl Into<RequestBody>,
            ) -> Self {
                let body = body.into();
                RequestFrame {
                    header: $crate::__private::RequestHeader::new(body.api_key().key(), version, correlation_id, client_id),
                    body,
                }
            }

            /// The body's API.
            pub fn api_key(&self) -> ApiKey {
                self.body.api_key()
            }

            /// The response answering this request with `body`: its correlation id, its API and
            /// version (the response header's version follows from them). Encoding it fails if
            /// `body` is another API's.
            pub fn respond(&self, body: impl Into<ResponseBody>) -> ResponseFrame {
                ResponseFrame {
                    header: $crate::__private::ResponseHeader::new(self.header.correlation_id),
                    api_key: self.api_key(),
                    version: self.version(),
                    body: body.into(),
                }
            }

            /// The response failing this request with `error`, at its version (see
            /// [`RequestBody::error_response`]).
            pub fn error_response(&self, error: $crate::__private::kafka_wire::ErrorCode) -> ResponseFrame {
                self.respond(self.body.error_response(self.version(), error))
            }

            /// The API version (`header.request_api_version`).
            pub fn version(&self) -> $crate::__private::Version {
                self.header.request_api_version
            }

            /// Decodes a whole request frame (4-byte size prefix included) of any declared API,
            /// with the limits of `options` (a size prefix above the frame size limit is
            /// rejected before reading further) and, if `options` allows them, ignoring bytes
            /// left after the body (Java's brokers do not look past it); the result says how
            /// many were ignored. `&DecodeOptions::DEFAULT` is Kafka's defaults, strict.
            ///
            /// As a broker does, it peeks the API key and version, picks the header version from
            /// them, then decodes header and body. An undeclared key is `UnknownApiKey`, a version
            /// outside the API's request versions `UnsupportedVersion`, and bytes left after the
            /// body `TrailingBytes` unless allowed.
            pub fn decode(
                frame: &$crate::__private::Bytes,
                options: &$crate::__private::DecodeOptions,
            ) -> Result<$crate::__private::DecodedFrame<Self>, $crate::__private::DecodeError> {
                $crate::__private::frame::decode_request_in(&mut Apis, frame, options)
            }

            /// Decodes only the request header of a frame, whatever its body: what a broker needs to
            /// answer a request it cannot parse. Kafka, for one, answers an ApiVersions request at an
            /// unsupported version with an UNSUPPORTED_VERSION v0 body carrying the request's
            /// correlation id, which [`decode`](Self::decode) rejects.
            ///
            /// The header version follows the API's flexible versions, even above its highest
            /// version; for an undeclared API key it is v1 (v2 only appends a tagged section to the
            /// same fields). The size prefix is checked against the frame size limit of `options`
            /// and the client id against its string limit; the body is not read.
            pub fn decode_header(
                frame: &$crate::__private::Bytes,
                options: &$crate::__private::DecodeOptions,
            ) -> Result<$crate::__private::RequestHeader, $crate::__private::DecodeError> {
                let mut r = options.open(frame)?;
                let (key, version) = $crate::__private::frame::peek_request(frame)?;
                let header_version =
                    ApiKey::from_i16(key).map_or(1, |api| api.request_header_version(version));
                <$crate::__private::RequestHeader as $crate::__private::KafkaMessage>::decode(&mut r, header_version).map_err(|e| e.in_part("header"))
            }

            /// The size of the whole frame, size prefix included.
            pub fn encoded_size(&self) -> usize {
                let v = self.version();
                4 + $crate::__private::KafkaMessage::encoded_size(&self.header, self.api_key().request_header_version(v))
                    + self.body.encoded_size(v)
            }

            /// Encodes the whole frame: size prefix, header (at the version the API calls for), body.
            ///
            /// Fails if `header.request_api_key` is not the body's API, or where the body's encode
            /// fails. All or nothing, into every buffer, as
            /// [`KafkaMessage::encode`](kafka_wire::KafkaMessage::encode) is.
            pub fn encode<B: $crate::__private::kafka_wire::EncodeBuf + ?Sized>(&self, buf: &mut B) -> Result<(), $crate::__private::EncodeError> {
                let api = self.api_key();
                if self.header.request_api_key != api.key() {
                    return Err($crate::__private::EncodeError::new($crate::__private::EncodeErrorKind::InvalidValue(
                        "request_api_key does not match the body's API",
                    ))
                    .in_field("request_api_key")
                    .in_part("header"));
                }
                let v = self.version();
                let hv = api.request_header_version(v);
                $crate::__private::frame::put_frame(buf, |out| {
                    $crate::__private::KafkaMessage::encode(&self.header, out, hv)
                        .map_err(|e| e.in_part("header"))?;
                    self.body.encode(out, v).map_err(|e| e.in_part("body"))
                })
            }

            /// Encodes the whole frame into a new vector.
            pub fn to_vec(&self) -> Result<Vec<u8>, $crate::__private::EncodeError> {
                // Written to the scratch vector, then copied: one allocation of the exact
                // size, no size pass.
                let mut out = Vec::new();
                $crate::__private::kafka_wire::__private::put_staged(&mut out, |s| self.encode(s))?;
                Ok(out)
            }

            /// Appends the whole frame to `out` with every `bytes` or `records` value of
            /// [`VECTORED_MIN`](kafka_wire::VECTORED_MIN) bytes or more referenced, not copied:
            /// the bytes [`encode`](Self::encode) writes, as segments for `write_vectored` or
            /// for a comparison that need not read a value shared with the input. All or nothing.
            pub fn encode_vectored(&self, out: &mut $crate::__private::kafka_wire::Vectored) -> Result<(), $crate::__private::EncodeError> {
                let api = self.api_key();
                if self.header.request_api_key != api.key() {
                    return Err($crate::__private::EncodeError::new($crate::__private::EncodeErrorKind::InvalidValue(
                        "request_api_key does not match the body's API",
                    ))
                    .in_field("request_api_key")
                    .in_part("header"));
                }
                let v = self.version();
                let hv = api.request_header_version(v);
                $crate::__private::kafka_wire::__private::append_vectored_frame(out, &mut |head| {
                    $crate::__private::KafkaMessage::encode(&self.header, head, hv)
                        .map_err(|e| e.in_part("header"))?;
                    self.body.encode(head, v).map_err(|e| e.in_part("body"))
                })
            }

            /// Encodes the whole frame into a new `Bytes`, ready for a
            /// `FrameCodec` or a socket.
            pub fn to_bytes(&self) -> Result<$crate::__private::Bytes, $crate::__private::EncodeError> {
                self.to_vec().map($crate::__private::Bytes::from)
            }
        }

        /// A whole response: header and body, with the API and version of the request it answers
        /// (which are not on the wire).
        #[derive(Debug, Clone, PartialEq)]
        pub struct ResponseFrame {
            /// The response header.
            pub header: $crate::__private::ResponseHeader,
            /// The API of the request this answers (must match the body's).
            pub api_key: ApiKey,
            /// The version of the request this answers; the body is encoded at it.
            pub version: $crate::__private::Version,
            /// The response body.
            pub body: ResponseBody,
        }

        impl ResponseFrame {
            /// A response of `body`'s API at `version`, answering `correlation_id`.
            pub fn new(correlation_id: i32, version: $crate::__private::Version, body: impl Into<ResponseBody>) -> Self {
                let body = body.into();
                ResponseFrame {
                    header: $crate::__private::ResponseHeader::new(correlation_id),
                    api_key: body.api_key(),
                    version,
                    body,
                }
            }

            /// Decodes a whole response frame (size prefix included) answering a request of
            /// `api_key` at `version`, with the limits of `options` (a size prefix above the
            /// frame size limit is rejected before reading further), and, if `options` allows
            /// them, ignoring bytes left after the body (Java's clients do not look past it); the
            /// result says how many were ignored. A version outside the API's response versions
            /// is `UnsupportedVersion`.
            ///
            /// With [`DecodeOptions::api_versions_fallback`](kafka_wire::frame::DecodeOptions::api_versions_fallback)
            /// (the default), an ApiVersions response that does not decode at `version` is
            /// decoded again at v0, as Kafka's clients do: the frame's `version` then says 0.
            pub fn decode(
                frame: &$crate::__private::Bytes,
                api_key: ApiKey,
                version: $crate::__private::Version,
                options: &$crate::__private::DecodeOptions,
            ) -> Result<$crate::__private::DecodedFrame<Self>, $crate::__private::DecodeError> {
                $crate::__private::frame::decode_response_in(&mut Apis, frame, api_key.key(), version, options)
            }

            /// The size of the whole frame, size prefix included.
            pub fn encoded_size(&self) -> usize {
                4 + $crate::__private::KafkaMessage::encoded_size(&self.header, self.api_key.response_header_version(self.version))
                    + self.body.encoded_size(self.version)
            }

            /// Encodes the whole frame: size prefix, header (v0 or v1 as the API and version call
            /// for), body at `version`.
            ///
            /// Fails if `api_key` is not the body's API, or where the body's encode fails. All or nothing,
            /// into every buffer, as
            /// [`KafkaMessage::encode`](kafka_wire::KafkaMessage::encode) is.
            pub fn encode<B: $crate::__private::kafka_wire::EncodeBuf + ?Sized>(&self, buf: &mut B) -> Result<(), $crate::__private::EncodeError> {
                if self.body.api_key() != self.api_key {
                    return Err($crate::__private::EncodeError::new($crate::__private::EncodeErrorKind::InvalidValue(
                        "api_key does not match the body's API",
                    ))
                    .in_field("api_key"));
                }
                let hv = self.api_key.response_header_version(self.version);
                $crate::__private::frame::put_frame(buf, |out| {
                    $crate::__private::KafkaMessage::encode(&self.header, out, hv)
                        .map_err(|e| e.in_part("header"))?;
                    self.body.encode(out, self.version).map_err(|e| e.in_part("body"))
                })
            }

            /// Encodes the whole frame into a new vector.
            pub fn to_vec(&self) -> Result<Vec<u8>, $crate::__private::EncodeError> {
                // Written to the scratch vector, then copied: one allocation of the exact
                // size, no size pass.
                let mut out = Vec::new();
                $crate::__private::kafka_wire::__private::put_staged(&mut out, |s| self.encode(s))?;
                Ok(out)
            }

            /// Appends the whole frame to `out` with long values referenced, not copied (see the
            /// request frame's `encode_vectored`). All or nothing.
            pub fn encode_vectored(&self, out: &mut $crate::__private::kafka_wire::Vectored) -> Result<(), $crate::__private::EncodeError> {
                if self.body.api_key() != self.api_key {
                    return Err($crate::__private::EncodeError::new($crate::__private::EncodeErrorKind::InvalidValue(
                        "api_key does not match the body's API",
                    ))
                    .in_field("api_key"));
                }
                let hv = self.api_key.response_header_version(self.version);
                $crate::__private::kafka_wire::__private::append_vectored_frame(out, &mut |head| {
                    $crate::__private::KafkaMessage::encode(&self.header, head, hv)
                        .map_err(|e| e.in_part("header"))?;
                    self.body.encode(head, self.version).map_err(|e| e.in_part("body"))
                })
            }

            /// Encodes the whole frame into a new `Bytes`, ready for a
            /// `FrameCodec` or a socket.
            pub fn to_bytes(&self) -> Result<$crate::__private::Bytes, $crate::__private::EncodeError> {
                self.to_vec().map($crate::__private::Bytes::from)
            }
        }

        impl $crate::__private::kafka_wire::typed::TypedRequest for RequestFrame {
            fn decode_frame(
                frame: &$crate::__private::Bytes,
                options: &$crate::__private::DecodeOptions,
            ) -> Result<$crate::__private::DecodedFrame<Self>, $crate::__private::DecodeError> {
                RequestFrame::decode(frame, options)
            }

            fn encode_frame(
                &self,
                buf: &mut $crate::__private::BytesMut,
            ) -> Result<(), $crate::__private::EncodeError> {
                self.encode(buf)
            }

            fn request_header(&self) -> &$crate::__private::RequestHeader {
                &self.header
            }
        }

        impl $crate::__private::kafka_wire::typed::TypedResponse for ResponseFrame {
            /// [`ResponseFrame::decode`], for the API named by `api_key`.
            fn decode_frame(
                frame: &$crate::__private::Bytes,
                api_key: i16,
                version: $crate::__private::Version,
                options: &$crate::__private::DecodeOptions,
            ) -> Result<$crate::__private::DecodedFrame<Self>, $crate::__private::DecodeError> {
                let api = ApiKey::from_i16(api_key).ok_or_else(|| {
                    $crate::__private::DecodeError::new(
                        $crate::__private::DecodeErrorKind::UnknownApiKey(api_key),
                        0,
                    )
                    .in_field("api_key")
                })?;
                ResponseFrame::decode(frame, api, version, options)
            }

            fn encode_frame(
                &self,
                buf: &mut $crate::__private::BytesMut,
            ) -> Result<(), $crate::__private::EncodeError> {
                self.encode(buf)
            }

            fn correlation_id(&self) -> i32 {
                self.header.correlation_id
            }
        }
    };
}

// This crate's own `apis!` call over the generated list, and `ApiKey::listeners` and
// `ApiKey::features`.
include!("generated/apis.rs");

/// A kind of listener that accepts an API (Kafka's `listeners`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Listener {
    /// A broker's client-facing listeners.
    Broker,
    /// A KRaft controller's listeners.
    Controller,
}
