//! Code generation: the only module that emits tokens. Each field is one short template
//! calling the runtime (`kafka_wire::__private`, imported as `__kw`): a call behind a version
//! gate that is emitted only when the field's versions differ from the struct's. The
//! struct's context (`StructCx`: version, compactness, metadata for error paths) is built once.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::{Field, FieldDefault, Kind, Struct};
use crate::range::Range;

/// Every identifier the generated code introduces, in one place. All start with `__` so they
/// cannot clash with the user's field names (which become locals in `read`).
mod names {
    /// The runtime's private module, imported under this alias in every expansion.
    pub const KW: &str = "__kw";
    /// The buffer written to.
    pub const BUF: &str = "__b";
    /// The caller's context (`Cx`).
    pub const CX: &str = "__cx";
    /// The struct's context (`StructCx`), built once per call.
    pub const ST: &str = "__s";
    /// The reader.
    pub const READER: &str = "__r";
    /// The running size.
    pub const SIZE: &str = "__n";
    /// The tag being read.
    pub const TAG: &str = "__tag";
    /// The struct's metadata, as a const item of the expansion.
    pub const META: &str = "__M";
    /// The running allocation ratio.
    pub const RATIO: &str = "__k";
    /// The buffer's type parameter.
    pub const BUF_TY: &str = "__B";
    /// Whether declared tagged field `i` is written: `__t{i}`.
    pub const TAGGED_PREFIX: &str = "__t";
}

/// The names, as identifiers.
struct N {
    kw: syn::Ident,
    b: syn::Ident,
    cx: syn::Ident,
    s: syn::Ident,
    r: syn::Ident,
    n: syn::Ident,
    tag: syn::Ident,
    m: syn::Ident,
    bt: syn::Ident,
    k: syn::Ident,
}

impl N {
    fn new() -> Self {
        let id = |s: &str| format_ident!("{}", s);
        N {
            kw: id(names::KW),
            b: id(names::BUF),
            cx: id(names::CX),
            s: id(names::ST),
            r: id(names::READER),
            n: id(names::SIZE),
            tag: id(names::TAG),
            m: id(names::META),
            bt: id(names::BUF_TY),
            k: id(names::RATIO),
        }
    }

    /// `name` with the span `sp`, where an error should point at the user's tokens.
    fn at(&self, name: &str, sp: proc_macro2::Span) -> syn::Ident {
        syn::Ident::new(name, sp)
    }

    fn tagged(&self, i: usize) -> syn::Ident {
        format_ident!("{}{}", names::TAGGED_PREFIX, i)
    }
}

/// A version range as a runtime value.
fn range(r: Range) -> TokenStream {
    let kw = format_ident!("{}", names::KW);
    if r.is_empty() {
        return quote!(#kw::VersionRange::NONE);
    }
    let (a, b) = (
        Literal::i16_unsuffixed(r.min),
        Literal::i16_unsuffixed(r.max),
    );
    quote!(#kw::VersionRange::new(#a, #b))
}

/// Whether the version is in `r`, knowing it is in `within`: `None` when always true.
fn version_in(n: &N, r: Range, within: Range) -> Option<TokenStream> {
    let s = &n.s;
    let r = r.intersect(within);
    if r.is_empty() {
        return Some(quote!(false));
    }
    let lo = (r.min > within.min).then(|| {
        let m = Literal::i16_unsuffixed(r.min);
        quote!(#s.version() >= #m)
    });
    let hi = (r.max < within.max).then(|| {
        let m = Literal::i16_unsuffixed(r.max);
        quote!(#s.version() <= #m)
    });
    match (lo, hi) {
        (None, None) => None,
        (Some(a), None) | (None, Some(a)) => Some(a),
        (Some(a), Some(b)) => Some(quote!(#a && #b)),
    }
}

/// `version_in` as a bool expression.
fn version_in_expr(n: &N, r: Range, within: Range) -> TokenStream {
    version_in(n, r, within).unwrap_or_else(|| quote!(true))
}

/// The field's default as a Rust value of its type.
fn default_tokens(f: &Field) -> TokenStream {
    let kw = format_ident!("{}", names::KW);
    let empty = quote!(#kw::Default::default());
    let value = match &f.default {
        FieldDefault::Null => return quote!(#kw::None),
        // As Java's FieldSpec.fieldDefault: a nullable records field defaults to null, other
        // nullable types to empty.
        FieldDefault::Implicit if f.option && f.kind == Kind::Records => return quote!(#kw::None),
        FieldDefault::Implicit | FieldDefault::Empty => empty,
        FieldDefault::Bool(b) => quote!(#b),
        FieldDefault::Int(v) => {
            let abs = Literal::u128_unsuffixed(v.unsigned_abs());
            if *v < 0 {
                quote!(-#abs)
            } else {
                quote!(#abs)
            }
        }
        FieldDefault::F64(v) => f64_tokens(*v),
        FieldDefault::Str(t) => quote!(#kw::From::from(#t)),
        FieldDefault::Uuid(b) => quote!(#kw::Uuid::from_bytes([#(#b),*])),
    };
    if f.option {
        quote!(#kw::Some(#value))
    } else {
        value
    }
}

fn f64_tokens(v: f64) -> TokenStream {
    if v.is_nan() {
        quote!(::core::f64::NAN)
    } else if v == f64::INFINITY {
        quote!(::core::f64::INFINITY)
    } else if v == f64::NEG_INFINITY {
        quote!(::core::f64::NEG_INFINITY)
    } else {
        let lit = Literal::f64_unsuffixed(v.abs());
        if v.is_sign_negative() {
            quote!(-#lit)
        } else {
            quote!(#lit)
        }
    }
}

/// The default's value in the metadata.
fn default_meta(f: &Field) -> TokenStream {
    let kw = format_ident!("{}", names::KW);
    match &f.default {
        FieldDefault::Implicit | FieldDefault::Empty => quote!(#kw::DefaultValue::Implicit),
        FieldDefault::Null => quote!(#kw::DefaultValue::Null),
        FieldDefault::Bool(b) => quote!(#kw::DefaultValue::Bool(#b)),
        FieldDefault::Int(v) => {
            let abs = Literal::u128_unsuffixed(v.unsigned_abs());
            if *v < 0 {
                quote!(#kw::DefaultValue::Int(-#abs))
            } else {
                quote!(#kw::DefaultValue::Int(#abs))
            }
        }
        FieldDefault::F64(v) => {
            let t = f64_tokens(*v);
            quote!(#kw::DefaultValue::Float(#t))
        }
        FieldDefault::Str(t) => quote!(#kw::DefaultValue::Str(#t)),
        FieldDefault::Uuid(b) => quote!(#kw::DefaultValue::Uuid([#(#b),*])),
    }
}

/// The wire width of a field type written as a fixed-width primitive (`i32`, not a path or
/// an alias: those go field by field).
fn fixed_width(ty: &syn::Type) -> Option<usize> {
    let syn::Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let id = p.path.get_ident()?;
    Some(match id.to_string().as_str() {
        "i8" => 1,
        "i16" | "u16" => 2,
        "i32" | "u32" => 4,
        "i64" | "f64" => 8,
        _ => return None,
    })
}

/// The most fields one run groups (the runtime implements runs of up to eight).
const MAX_RUN_FIELDS: usize = 8;
/// The most bytes one run groups (the runtime's run buffer).
const MAX_RUN_BYTES: usize = 64;

/// How one regular field is laid out at the struct's versions.
enum Layout {
    /// Never a regular field (tagged in all its versions, or absent).
    None,
    /// A regular field, behind `gate` when not in every version.
    Single(Option<TokenStream>),
}

/// Plans the regular fields: their gates, and runs (first index, length) of two or more
/// adjacent untagged fixed-width fields. A run is written with one `put_slice` and read with
/// one bounds check when all its fields are present; when some are not (a run with gated
/// fields at an early version), field by field. The second path earns its lines: a
/// TxnOffsetCommit v5 partition is such a run, and reading it field by field cost about 25%
/// more instructions per message.
fn layouts(n: &N, s: &Struct) -> (Vec<Layout>, Vec<(usize, usize)>) {
    let layout = s
        .fields
        .iter()
        .map(|f| {
            let m = f.mandatory().intersect(s.versions);
            if m.is_empty() {
                Layout::None
            } else {
                Layout::Single(version_in(n, m, s.versions))
            }
        })
        .collect::<Vec<_>>();
    let runnable = |f: &Field| {
        f.tag.is_none()
            && !f.mandatory().intersect(s.versions).is_empty()
            && fixed_width(&f.ty).is_some()
    };
    let mut runs = Vec::new();
    let mut i = 0;
    while i < s.fields.len() {
        let mut j = i;
        let mut width = 0;
        while j < s.fields.len()
            && j - i < MAX_RUN_FIELDS
            && runnable(&s.fields[j])
            && width + fixed_width(&s.fields[j].ty).unwrap_or(0) <= MAX_RUN_BYTES
        {
            width += fixed_width(&s.fields[j].ty).unwrap_or(0);
            j += 1;
        }
        if j - i >= 2 {
            runs.push((i, j - i));
            i = j;
        } else {
            i += 1;
        }
    }
    (layout, runs)
}

/// The struct context for field `f`'s regular versions: null allowed where it is nullable,
/// compact only where a field-level `flexible` says so.
fn field_st(n: &N, s: &Struct, f: &Field) -> TokenStream {
    let st = &n.s;
    let within = f.mandatory().intersect(s.versions);
    let mut out = quote!(#st);
    if f.option {
        let nullable = version_in_expr(n, f.nullable, within);
        out = quote!(#out.with_nullable(#nullable));
    }
    if let Some(fl) = f.flexible {
        let c = version_in_expr(n, fl, within);
        out = quote!(#out.with_compact(#c));
    }
    out
}

pub fn generate(s: &Struct) -> TokenStream {
    let n = N::new();
    let N {
        kw,
        b,
        cx,
        s: st,
        r,
        n: sz,
        tag: tagv,
        m,
        bt,
        k,
    } = &n;
    let ident = &s.ident;
    let krate = &s.krate;
    let (plan, runs) = layouts(&n, s);
    let mut tagged: Vec<(usize, &Field)> = s
        .fields
        .iter()
        .enumerate()
        .filter(|(_, f)| f.tag.is_some())
        .collect();
    tagged.sort_by_key(|(_, f)| f.tag);

    // Per field: its write statements and its read (a statement, or for a regular field an
    // expression of its value, so that runs can group them).
    let mut field_writes: Vec<TokenStream> = Vec::new();
    let mut field_reads: Vec<Option<TokenStream>> = Vec::new();
    let mut field_decls: Vec<TokenStream> = Vec::new();
    let mut writes = Vec::new();
    let mut sizes = Vec::new();
    let mut const_size = 0usize;
    let mut reads = Vec::new();
    // The fewest bytes and the allocation ratio (see `Field::min_size`, `alloc_ratio`):
    // fixed-width fields in every version add to `const_size`, which is also their minimum.
    let mut mins = Vec::new();
    let mut ratios = Vec::new();
    for (i, (f, layout)) in s.fields.iter().zip(&plan).enumerate() {
        let i = Literal::usize_unsuffixed(i);
        let fid = &f.ident;
        let ty = &f.ty;
        let sp = ty.span();
        let def = default_tokens(f);
        let fst = field_st(&n, s, f);
        // As Java's MessageDataGenerator (generateNonIgnorableFieldCheck): a non-default value
        // in a non-ignorable field the version does not have.
        let absent = (!f.ignorable)
            .then(|| version_in(&n, f.versions, s.versions))
            .flatten()
            .map(|c| quote_spanned!(sp=> if !(#c) { <#ty as #kw::StructField>::absent(&self.#fid, #def, #st, #i)?; }));
        let mutable = f.tag.is_some().then(|| quote!(mut));
        // Fixed-width types allocate nothing.
        let allocates = !matches!(
            f.kind,
            Kind::Bool | Kind::Int { .. } | Kind::F64 | Kind::Uuid
        );
        if let Some(tag_from) = f.tag.map(|_| f.tagged) {
            if allocates {
                let g = version_in_expr(&n, tag_from, s.versions);
                let nullable = !f.nullable.intersect(f.tagged).is_empty();
                ratios.push(quote_spanned!(sp=>
                    if #g { #k = #k.max(<#ty as #kw::StructField>::tagged_alloc_ratio(#st, #nullable)); }
                ));
            }
        }
        if let Layout::Single(gate) = layout {
            let min = quote_spanned!(sp=> <#ty as #kw::StructField>::min_size_in(#fst));
            let ratio =
                quote_spanned!(sp=> #k = #k.max(<#ty as #kw::StructField>::alloc_ratio_in(#fst)););
            match gate {
                None if fixed_width(ty).is_some() => {}
                None => mins.push(quote!(#sz += #min;)),
                Some(g) => mins.push(quote!(if #g { #sz += #min; })),
            }
            if allocates {
                ratios.push(match gate {
                    None => ratio,
                    Some(g) => quote!(if #g { #ratio }),
                });
            }
        }
        match layout {
            Layout::None => {
                field_writes.push(absent.unwrap_or_default());
                field_reads.push(None);
                field_decls.push(quote_spanned!(sp=> let #mutable #fid: #ty = #def;));
            }
            Layout::Single(gate) => {
                // `outline` structs call each field's template (one copy per field type);
                // the others inline it, which is faster and compiles slower. Fixed-width
                // fields stay inline: a load or store and a bounds test, less than a call.
                let [put_fn, size_fn, get_fn, get_or_fn] =
                    if s.outline && fixed_width(ty).is_none() {
                        [
                            "put_outlined",
                            "size_outlined",
                            "get_outlined",
                            "get_or_outlined",
                        ]
                    } else {
                        ["put", "size_in", "get", "get_or"]
                    }
                    .map(|f| format_ident!("{}", f, span = sp));
                let put = quote_spanned!(sp=> <#ty as #kw::StructField>::#put_fn(&self.#fid, #fst, #b, #i)?;);
                let size =
                    quote_spanned!(sp=> <#ty as #kw::StructField>::#size_fn(&self.#fid, #fst));
                field_decls.push(quote!(let #mutable #fid));
                match gate {
                    None => {
                        field_writes.push(put);
                        match fixed_width(ty) {
                            Some(w) => const_size += w,
                            None => sizes.push(quote!(#sz += #size;)),
                        }
                        field_reads.push(Some(
                            quote_spanned!(sp=> <#ty as #kw::StructField>::#get_fn(#r, #fst, #i)?),
                        ));
                    }
                    Some(g) => {
                        let absent_else = absent.map(|a| quote!(else { #a }));
                        field_writes.push(quote!(if #g { #put } #absent_else));
                        sizes.push(quote!(if #g { #sz += #size; }));
                        field_reads.push(Some(quote_spanned!(sp=>
                            <#ty as #kw::StructField>::#get_or_fn(#r, #fst, #i, #g, #def)?
                        )));
                    }
                }
            }
        }
    }
    // Emit in wire order, runs as one piece each. The slices below are in bounds by
    // construction: `layouts` only makes runs with `first + len <= fields.len()`, and `plan`,
    // `field_writes` and `field_reads` hold one entry per field. This runs in the compiler,
    // never on wire input.
    let mut i = 0;
    let mut tags_written = false;
    while i < s.fields.len() {
        let Some(&(first, len)) = runs.iter().find(|(f, _)| *f == i) else {
            writes.push(field_writes[i].clone());
            reads.push(match &field_reads[i] {
                Some(e) => {
                    let d = &field_decls[i];
                    quote!(#d = #e;)
                }
                None => field_decls[i].clone(),
            });
            i += 1;
            continue;
        };
        let fields = &s.fields[first..first + len];
        let ids: Vec<_> = fields.iter().map(|f| &f.ident).collect();
        let tys: Vec<_> = fields.iter().map(|f| &f.ty).collect();
        let width_n: usize = fields.iter().map(|f| fixed_width(&f.ty).unwrap_or(0)).sum();
        let width = Literal::usize_unsuffixed(width_n);
        let at = Literal::usize_unsuffixed(first);
        let gates: Vec<_> = plan[first..first + len]
            .iter()
            .filter_map(|l| match l {
                Layout::Single(Some(g)) => Some(g),
                _ => None,
            })
            .collect();
        let put = quote!(#st.put_run::<#width, _, _>((#(&self.#ids,)*), #b););
        let get = quote!(#st.get_run::<(#(#tys,)*)>(#r, #at)?);
        if gates.is_empty() {
            // A run that ends a struct whose tagged section holds only unknown fields: the
            // section's count goes out with the run (see `StructCx::put_run_tags`).
            match &s.unknown {
                Some(unk) if first + len == s.fields.len() && tagged.is_empty() => {
                    let width1 = Literal::usize_unsuffixed(width_n + 1);
                    let unk_name = unk.to_string();
                    writes.push(quote!(
                        #st.put_run_tags::<#width, #width1, _, _>((#(&self.#ids,)*), #b, &self.#unk, #unk_name)?;
                    ));
                    tags_written = true;
                }
                _ => writes.push(put),
            }
            reads.push(quote!(let (#(#ids,)*) = #get;));
        } else {
            let one_by_one_w = &field_writes[first..first + len];
            let one_by_one_r = field_reads[first..first + len].iter().flatten();
            writes.push(quote!(if #(#gates)&&* { #put } else { #(#one_by_one_w)* }));
            reads.push(quote! {
                let (#(#ids,)*) = if #(#gates)&&* { #get } else { (#(#one_by_one_r,)*) };
            });
        }
        i = first + len;
    }

    // The tagged section (flexible structs only: they all keep unknown tagged fields).
    if let Some(unk) = &s.unknown {
        let unk_name = unk.to_string();
        let declared = tagged.iter().filter_map(|(_, f)| f.tag);
        let flags: Vec<_> = tagged.iter().map(|(i, _)| n.tagged(*i)).collect();
        let mut presence = Vec::new();
        let mut put_tagged = Vec::new();
        let mut size_tagged = Vec::new();
        let mut arms = Vec::new();
        for ((i, f), flag) in tagged.iter().zip(&flags) {
            let i = Literal::usize_unsuffixed(*i);
            let fid = &f.ident;
            let ty = &f.ty;
            let sp = ty.span();
            let tag = f.tag.unwrap_or_default();
            let def = default_tokens(f);
            let in_tagged = version_in_expr(&n, f.tagged, s.versions);
            let nullable = !f.nullable.intersect(f.tagged).is_empty();
            let from = Literal::i16_unsuffixed(f.tagged.min);
            presence.push(quote_spanned!(sp=>
                let #flag = #in_tagged && <#ty as #kw::StructField>::differs(&self.#fid, #def);
            ));
            put_tagged.push(quote_spanned!(sp=> if #flag { <#ty as #kw::StructField>::put_tagged(&self.#fid, #st, #b, #i, #tag, #nullable)?; }));
            size_tagged.push(quote_spanned!(sp=> if #flag { #sz += <#ty as #kw::StructField>::tagged_size(&self.#fid, #st, #tag, #nullable); }));
            arms.push(quote_spanned!(sp=>
                #tag => <#ty as #kw::StructField>::get_tagged(#r, #st, &mut #fid, #i, #tag, #from, #nullable),
            ));
        }
        let count = if flags.is_empty() {
            quote!(0)
        } else {
            quote!(#(usize::from(#flags))+*)
        };
        if tags_written {
            // Written with the struct's last run.
        } else if flags.is_empty() {
            writes.push(quote!(#st.put_unknown_tags(#b, &self.#unk, #unk_name)?;));
        } else {
            // Unknown tags after all declared ones is ascending order, as Java writes it:
            // declared tags are contiguous from 0 (checked in model.rs, as Java's StructSpec
            // does) and no unknown tag reuses one, so
            // no unknown tag lies below a declared one (`RawTags::put_below` is never needed).
            writes.push(quote! {
                #(#presence)*
                if #st.put_tags(#b, &self.#unk, #count, &[#(#declared),*], #unk_name)? {
                    #(#put_tagged)*
                    #kw::RawTags::new(&self.#unk).put_rest(#b);
                }
            });
        }
        sizes.push(quote! {
            #(#presence)*
            #sz += #st.tags_size(&self.#unk, #count);
            #(#size_tagged)*
        });
        let known = if arms.is_empty() {
            quote!(#kw::no_known_tags)
        } else {
            quote!(|#tagv, #r| match #tagv { #(#arms)* _ => #kw::Ok(#kw::None) })
        };
        reads.push(quote! {
            let mut #unk = #kw::UnknownTaggedFields::new();
            #st.get_tags(#r, &mut #unk, &mut #known)?;
        });
    }

    // Nested structs share the parent's flexible versions (Java's MessageDataGenerator gives
    // every struct the message's flexibleVersions): only for types that may
    // be structs; primitives, strings and bytes have none.
    let nested_checks = s.fields.iter().filter(|f| may_nest(&f.kind)).map(|f| {
        let ty = &f.ty;
        // The compile-time panic is reported at the call's first token: the field's type.
        let kw = n.at(names::KW, ty.span());
        let m = n.at(names::META, ty.span());
        quote_spanned! {ty.span()=>
            const _: () = #kw::check_nested_flexible(<#ty as #kw::StructField>::NESTED_FLEXIBLE, #m.flexible);
        }
    });

    let meta = struct_meta(s);
    let inits = s.fields.iter().map(|f| &f.ident).chain(&s.unknown);
    let defaults = s.fields.iter().map(|f| {
        let fid = &f.ident;
        let def = default_tokens(f);
        quote!(#fid: #def)
    });
    let unk_default = s
        .unknown
        .iter()
        .map(|u| quote!(#u: #kw::UnknownTaggedFields::new()));
    let api_impl = s.api.map(|(key, req)| {
        let kind = if req {
            quote!(#kw::ApiKind::Request)
        } else {
            quote!(#kw::ApiKind::Response)
        };
        // A response's error codes: its top-level `int16` fields Kafka names `…ErrorCode`,
        // each set where the version has it (`ApiMessage::set_error_code`).
        let errors: Vec<TokenStream> = if req {
            Vec::new()
        } else {
            s.fields
                .iter()
                .filter(|f| {
                    f.name.ends_with("ErrorCode")
                        && !f.option
                        && matches!(f.kind, Kind::Int { bits: 16, signed: true })
                })
                .map(|f| {
                    let id = &f.ident;
                    let r = range(f.versions);
                    quote! {
                        if #r.contains(version) {
                            self.#id = error.code();
                            set += 1;
                        }
                    }
                })
                .collect()
        };
        let set_error = (!errors.is_empty()).then(|| {
            quote! {
                fn set_error_code(&mut self, version: #kw::Version, error: #kw::ErrorCode) -> usize {
                    let mut set = 0;
                    #(#errors)*
                    set
                }
            }
        });
        quote! {
            #[automatically_derived]
            impl #kw::ApiMessage for #ident {
                const API_KEY: i16 = #key;
                const KIND: #kw::ApiKind = #kind;
                #set_error
            }
        }
    });
    // In optimised builds a leaf struct's `read` (one holding no struct or array of structs)
    // is inlined into its caller's array loop, so each element is built in place rather
    // than returned and copied (TxnOffsetCommit v5 100x100 decode: 2.15M -> 1.60M
    // instructions); `always`, as a plain hint was not taken through dispatch. A struct
    // holding others only gets the hint: forcing every level inline made each message's
    // decode one function holding its whole tree, which LLVM optimises in superlinear
    // time, for no measurable gain (a call per outer element is noise next to its inner
    // elements). Not forced in unoptimised builds, where inlining only multiplies the code
    // LLVM handles (messages crate, debug, every API: 37.6 s -> 29.4 s).
    //
    // An API message's `read` and `write_vec` have one caller each, the message's `decode`
    // and `encode`, which LLVM inlined them into anyway; forced, they are inlined before
    // being optimised on their own, so each message body goes through the optimiser once
    // instead of twice (release build of the messages crate: LLVM's passes on the
    // standalone `read` and `write` of the 182 messages took 11% of the crate's pass time).
    //
    // The fields are written in `write_vec` (into the `Vec<u8>` every message encode writes
    // into, so that a writer can use the vector itself: an inline integer array is one
    // fixed-size store, then a truncation); `write`, for callers with any other buffer,
    // stages through it (`write_staged`), so each struct's fields are written by one body.
    let leaf = !s.fields.iter().any(|f| may_nest(&f.kind));
    let read_inline = if leaf || s.api.is_some() {
        quote! {
            #[cfg_attr(debug_assertions, inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
        }
    } else {
        quote!(#[inline])
    };
    let write_inline = s
        .api
        .map(|_| quote!(#[cfg_attr(not(debug_assertions), inline(always))]));
    let size_init = Literal::usize_unsuffixed(const_size);
    // Whether sizing the struct runs no loop (`FieldHooks::sizes_trivially`): its arrays of
    // anything but fixed-width values empty or null, its struct (or other) fields so, and
    // no unknown tagged fields. `KafkaMessage::encoded_size` sizes such a message inline and
    // any other out of line; so an API message's `size` is forced into both.
    let mut trivial: Vec<TokenStream> = s
        .fields
        .iter()
        .filter(|f| match &f.kind {
            Kind::Array(el) => {
                !matches!(**el, Kind::Bool | Kind::Int { .. } | Kind::F64 | Kind::Uuid)
            }
            Kind::Other => true,
            _ => false,
        })
        .map(|f| {
            let (fid, ty) = (&f.ident, &f.ty);
            quote_spanned!(ty.span()=> <#ty as #kw::StructField>::size_is_trivial(&self.#fid))
        })
        .collect();
    if let Some(unk) = &s.unknown {
        trivial.push(quote!(#kw::no_unknown_tags(&self.#unk)));
    }
    let trivial = if trivial.is_empty() {
        quote!(true)
    } else {
        quote!(#(#trivial)&&*)
    };
    let size_inline = match s.api {
        Some(_) => quote! {
            #[cfg_attr(debug_assertions, inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
        },
        None => quote!(#[inline]),
    };
    // The tagged section: its count byte, and its unknown fields' allocations.
    let (min_tags, ratio_init) = match &s.unknown {
        Some(_) => (
            quote!(#sz += usize::from(#st.flexible());),
            quote!(#st.unknown_ratio()),
        ),
        None => (quote!(), quote!(0)),
    };

    // An `outline` message is sized by one copy of its `size` (`encoded_size_outlined`), not by the
    // provided `encoded_size`'s inline and out-of-line pair; an inline hint, so that it is
    // only compiled where it is called (the messages' dispatch), not for every nested struct.
    let whole_size = s.outline.then(|| {
        quote! {
            #[inline]
            fn encoded_size(&self, version: #kw::Version) -> usize {
                #kw::encoded_size_outlined(self, version)
            }
        }
    });
    // Arrays of an `outline` struct are read and written by the element loops compiled once
    // for every such type (`FieldHooks::OUTLINED`).
    let outlined = s.outline.then(|| {
        quote!(
            const OUTLINED: bool = true;
        )
    });

    quote! {
        const _: () = {
            use #krate::__private as #kw;
            const #m: &#kw::StructMeta = &#meta;
            #(#nested_checks)*

            #[automatically_derived]
            impl #kw::FieldHooks for #ident {
                const NESTED_FLEXIBLE: #kw::Option<#kw::VersionRange> = #kw::Some(#m.flexible);
                #outlined

                #write_inline
                fn write_vec<#bt: #kw::VecBuf + ?Sized>(&self, #b: &mut #bt, #cx: #kw::Cx, _: #kw::Sealed) -> #kw::EncodeResult {
                    let #st = #kw::StructCx::new(#m, #cx);
                    #st.check_write_version()?;
                    #(#writes)*
                    #kw::Ok(())
                }

                #[inline]
                fn sizes_trivially(&self, _: #kw::Sealed) -> bool {
                    #trivial
                }

                fn read_discard(#r: &mut #kw::Reader<'_>, #cx: #kw::Cx, _: #kw::Sealed) -> #kw::DecodeResult<()> {
                    #kw::discard_struct(#m, #r, #cx)
                }
            }

            #[automatically_derived]
            impl #kw::Field for #ident {
                const KAFKA_TYPE: #kw::KafkaType = #kw::KafkaType::Struct(#kw::meta_of::<Self>);

                fn write<#bt: #kw::BufMut + ?Sized>(&self, #b: &mut #bt, #cx: #kw::Cx) -> #kw::EncodeResult {
                    #kw::write_staged(self, #b, #cx)
                }

                #size_inline
                fn size(&self, #cx: #kw::Cx) -> usize {
                    let #st = #kw::StructCx::new(#m, #cx);
                    let mut #sz = #size_init;
                    #(#sizes)*
                    #sz
                }

                #[inline]
                fn min_size(#cx: #kw::Cx) -> usize {
                    let #st = #kw::StructCx::new(#m, #cx);
                    let mut #sz = #size_init;
                    #(#mins)*
                    #min_tags
                    #sz
                }

                fn alloc_ratio(#cx: #kw::Cx) -> usize {
                    let #st = #kw::StructCx::new(#m, #cx);
                    let mut #k = #ratio_init;
                    #(#ratios)*
                    #k
                }

                #read_inline
                fn read(#r: &mut #kw::Reader<'_>, #cx: #kw::Cx) -> #kw::DecodeResult<Self> {
                    let #st = #kw::StructCx::new(#m, #cx);
                    #st.check_read_version(#r)?;
                    #(#reads)*
                    #kw::Ok(Self { #(#inits),* })
                }
            }

            #[automatically_derived]
            impl #kw::NullableField for #ident {}

            #[automatically_derived]
            impl #kw::KafkaMessage for #ident {
                const META: &'static #kw::StructMeta = #m;
                #whole_size
            }

            #[automatically_derived]
            impl #kw::Default for #ident {
                fn default() -> Self {
                    #ident { #(#defaults,)* #(#unk_default,)* }
                }
            }

            #api_impl
        };
    }
}

/// Whether a field of this kind may hold a derived struct (whose flexible versions must
/// then match).
fn may_nest(k: &Kind) -> bool {
    match k {
        Kind::Other => true,
        Kind::Array(el) => may_nest(el),
        _ => false,
    }
}

/// Whether a field of this kind may hold a string, so that its type's `UTF8_REQUIRED` matters:
/// strings, types the derive does not know (a user's newtype may wrap a `String`) and arrays
/// of either.
fn may_hold_str(k: &Kind) -> bool {
    match k {
        Kind::Str | Kind::Other => true,
        Kind::Array(el) => may_hold_str(el),
        _ => false,
    }
}

/// The struct's metadata: a const constructor, then a builder call per non-default key.
fn struct_meta(s: &Struct) -> TokenStream {
    let kw = format_ident!("{}", names::KW);
    let name = &s.name;
    let about = &s.about;
    let (versions, flexible) = (range(s.versions), range(s.flexible));
    let fields = s.fields.iter().map(field_meta);
    let mut out =
        quote!(#kw::StructMeta::new(#name, #versions, #flexible, #about, &[#(#fields),*]));
    if let Some((key, req)) = s.api {
        let kind = if req {
            quote!(#kw::ApiKind::Request)
        } else {
            quote!(#kw::ApiKind::Response)
        };
        out = quote!(#out.with_api(#key, #kind));
    }
    if let Some(u) = &s.unknown {
        let u = u.to_string();
        out = quote!(#out.with_unknown_tagged_field(#u));
    }
    if s.latest_version_unstable {
        out = quote!(#out.with_latest_version_unstable());
    }
    out
}

fn field_meta(f: &Field) -> TokenStream {
    let kw = format_ident!("{}", names::KW);
    let rust_name = f.ident.to_string();
    let kname = &f.name;
    let ty = &f.ty;
    let versions = range(f.versions);
    let about = &f.about;
    let kafka_type = quote_spanned!(ty.span()=> <#ty as #kw::StructField>::KAFKA_TYPE);
    let mut out = quote!(#kw::FieldMeta::new(#rust_name, #kname, #kafka_type, #versions, #about));
    // Only a type that may hold a string can require UTF-8; for the rest (most fields) the
    // flag is the constructor's `false`, and no expression is emitted.
    if may_hold_str(&f.kind) {
        out = quote!(#out.with_utf8_required(<#ty as #kw::StructField>::UTF8_REQUIRED));
    }
    if !f.nullable.is_empty() {
        let r = range(f.nullable);
        out = quote!(#out.with_nullable(#r));
    }
    if let Some(tag) = f.tag {
        let r = range(f.tagged);
        out = quote!(#out.with_tag(#tag, #r));
    }
    if let Some(text) = &f.default_text {
        let v = default_meta(f);
        out = quote!(#out.with_default(#text, #v));
    }
    if f.ignorable {
        out = quote!(#out.with_ignorable());
    }
    if let Some(fl) = f.flexible {
        let r = range(fl);
        out = quote!(#out.with_flexible(#r));
    }
    if let Some(e) = &f.entity_type {
        out = quote!(#out.with_entity_type(#e));
    }
    if f.map_key {
        out = quote!(#out.with_map_key());
    }
    if f.zero_copy {
        out = quote!(#out.with_zero_copy());
    }
    out
}

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
