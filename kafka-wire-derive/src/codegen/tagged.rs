//! The tagged section, in flexible structs (they all keep unknown tagged fields): its write,
//! size and read, and the allocation ratio of a field in its tagged versions. A declared
//! tagged field is written when its version has it tagged and its value differs from its
//! default (`__t{i}`, computed the same way by `write` and `size`).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::plan::{FieldPlan, Plan};
use super::rt;

/// The declared tagged fields in tag order: each one's flag, plan and tag.
fn declared<'p, 'a>(p: &'p Plan<'a>) -> impl Iterator<Item = (syn::Ident, &'p FieldPlan<'a>, u32)> {
    p.tagged.iter().map(|&i| {
        let f = &p.fields[i];
        (p.n.tagged(i), f, f.field.tag.unwrap_or_default())
    })
}

/// Per declared field, `let __t{i} = <in a tagged version> && <differs from its default>;`,
/// and the section's count of declared fields written.
fn presence(p: &Plan) -> (Vec<TokenStream>, TokenStream) {
    let mut lets = Vec::new();
    let mut flags = Vec::new();
    for (flag, f, _) in declared(p) {
        let in_tagged = p.version_in_expr(f.field.tagged);
        let differs = rt::differs(&p.n, f);
        lets.push(quote_spanned!(f.span=> let #flag = #in_tagged && #differs;));
        flags.push(flag);
    }
    let count = if flags.is_empty() {
        quote!(0)
    } else {
        quote!(#(usize::from(#flags))+*)
    };
    (lets, count)
}

/// Writes the section, unless the struct's last run wrote its count (`Plan::tags_with_run`).
pub fn write(p: &Plan) -> Option<TokenStream> {
    let unk = p.s.unknown.as_ref()?;
    if p.tags_with_run {
        return None;
    }
    if p.tagged.is_empty() {
        return Some(rt::put_unknown_tags(&p.n, unk));
    }
    let (presence, count) = presence(p);
    let tags: Vec<u32> = declared(p).map(|(_, _, tag)| tag).collect();
    let start = rt::put_tags(&p.n, unk, &count, &tags);
    let puts = declared(p).map(|(flag, f, tag)| {
        let call = rt::put_tagged(&p.n, f, tag);
        quote_spanned!(f.span=> if #flag { #call?; })
    });
    let rest = rt::put_rest(&p.n, unk);
    // Unknown tags after all declared ones is ascending order, as Java writes it: declared
    // tags are contiguous from 0 (checked in model.rs, as Java's StructSpec does) and no
    // unknown tag reuses one, so no unknown tag lies below a declared one
    // (`RawTags::put_below` is never needed).
    Some(quote! {
        #(#presence)*
        if #start {
            #(#puts)*
            #rest
        }
    })
}

/// Sizes the section.
pub fn size(p: &Plan) -> Option<TokenStream> {
    let unk = p.s.unknown.as_ref()?;
    let sz = &p.n.n;
    let (presence, count) = presence(p);
    let total = rt::tags_size(&p.n, unk, &count);
    let sizes = declared(p).map(|(flag, f, tag)| {
        let call = rt::tagged_size(&p.n, f, tag);
        quote_spanned!(f.span=> if #flag { #sz += #call; })
    });
    Some(quote! {
        #(#presence)*
        #sz += #total;
        #(#sizes)*
    })
}

/// Reads the section: unknown fields kept, declared ones into their locals.
pub fn read(p: &Plan) -> Option<TokenStream> {
    let unk = p.s.unknown.as_ref()?;
    let (kw, tagv, r) = (&p.n.kw, &p.n.tag, &p.n.r);
    let arms: Vec<_> = declared(p)
        .map(|(_, f, tag)| {
            let call = rt::get_tagged(&p.n, f, tag);
            quote_spanned!(f.span=> #tag => #call,)
        })
        .collect();
    let known = if arms.is_empty() {
        rt::no_known_tags(&p.n)
    } else {
        quote!(|#tagv, #r| match #tagv { #(#arms)* _ => #kw::Ok(#kw::None) })
    };
    let empty = rt::unknown_tags_new(kw);
    let get = rt::get_tags(&p.n, unk, &known);
    Some(quote! {
        let mut #unk = #empty;
        #get
    })
}

/// A field's allocation ratio in its tagged versions (`None` for an untagged field).
pub fn ratio(p: &Plan, f: &FieldPlan) -> Option<TokenStream> {
    f.field.tag?;
    let k = &p.n.k;
    let g = p.version_in_expr(f.field.tagged);
    let call = rt::tagged_ratio(&p.n, f);
    Some(quote_spanned!(f.span=> if #g { #k = #k.max(#call); }))
}
