//! On error, still emit the impls (with bodies that cannot run) so that users see the
//! attribute errors, not a flood of "trait not implemented" errors at every use.

use proc_macro2::TokenStream;
use quote::quote;

/// On error, still emit the impls (with bodies that cannot run) so that users see the
/// attribute errors, not a flood of "trait not implemented" errors at every use: as a field,
/// as `Option<…>`, as a message (`encode`, `META`) and, when declared, as an API message.
pub fn fallback(input: &syn::DeriveInput) -> TokenStream {
    let ident = &input.ident;
    if !input.generics.params.is_empty() {
        return quote!();
    }
    let loose = LooseAttrs::scan(&input.attrs);
    let krate = loose
        .krate
        .unwrap_or_else(|| syn::parse_quote!(::kafka_wire));
    let name = ident.to_string();
    let api_impl = if loose.api {
        quote! {
            impl __kw::ApiMessage for #ident {
                const API_KEY: i16 = 0;
                const KIND: __kw::ApiKind = __kw::ApiKind::Request;
            }
        }
    } else {
        quote!()
    };
    let unbuilt = "the derive reported errors for this struct";
    quote! {
        const _: () = {
            use #krate::__private as __kw;
            impl __kw::FieldHooks for #ident {}
            impl __kw::Field for #ident {
                const KAFKA_TYPE: __kw::KafkaType = __kw::KafkaType::Struct(__kw::meta_of::<Self>);
                fn write<__B: __kw::BufMut + ?Sized>(&self, _: &mut __B, _: __kw::Cx) -> ::core::result::Result<(), __kw::EncodeError> {
                    ::core::result::Result::Err(__kw::EncodeError::new(__kw::EncodeErrorKind::InvalidValue(#unbuilt)))
                }
                fn size(&self, _: __kw::Cx) -> usize { 0 }
                fn read(__r: &mut __kw::Reader<'_>, _: __kw::Cx) -> ::core::result::Result<Self, __kw::DecodeError> {
                    ::core::result::Result::Err(__r.error(__kw::DecodeErrorKind::InvalidValue(#unbuilt)))
                }
            }
            impl __kw::NullableField for #ident {}
            impl __kw::KafkaMessage for #ident {
                const META: &'static __kw::StructMeta = &__kw::StructMeta::new(
                    #name, __kw::VersionRange::NONE, __kw::VersionRange::NONE, "", &[],
                );
            }
            impl ::core::default::Default for #ident {
                // Only ever compiled next to the attribute errors, so never run; a struct
                // whose attributes failed has no default to build.
                fn default() -> Self { ::core::unreachable!() }
            }
            #api_impl
        };
    }
}

/// What the fallback needs from attributes that failed to parse: `crate = "…"` (so the impls
/// name the right runtime) and whether `api_key`/`request`/`response` appear. Best effort:
/// anything unreadable is skipped, its error is already reported.
#[derive(Default)]
struct LooseAttrs {
    krate: Option<syn::Path>,
    api: bool,
}

impl LooseAttrs {
    fn scan(attrs: &[syn::Attribute]) -> Self {
        let mut out = LooseAttrs::default();
        for a in attrs.iter().filter(|a| a.path().is_ident("kafka")) {
            let _ = a.parse_nested_meta(|m| {
                if m.path.is_ident("crate") {
                    if let Ok(s) = m.value().and_then(|v| v.parse::<syn::LitStr>()) {
                        out.krate = s.parse().ok();
                    }
                } else if ["api_key", "request", "response"]
                    .iter()
                    .any(|k| m.path.is_ident(k))
                {
                    out.api = true;
                }
                // Skip any value, so that the keys after it are still seen.
                if m.input.peek(syn::Token![=]) {
                    let _ = m.value().and_then(|v| v.parse::<syn::Expr>());
                }
                Ok(())
            });
        }
        out
    }
}
