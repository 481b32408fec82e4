// SPDX-License-Identifier: GPL-3.0-or-later
// Library mask conventions mapped onto the mask catalogue.
#include "core/spec/mask_conventions.h"

#include "core/base/error.h"

namespace attnlab {

namespace {
std::string str(int k) {
    return std::to_string(k);
}

void requireRadius(int r) {
    if (r < 0) throw InputError("radius: must be a non-negative integer");
}
void requireKeys(int w) {
    if (w < 1) throw InputError("W: a window needs at least one key");
}

// Keys s−left ≤ t ≤ s+right (left ≥ right ≥ 0) in catalogue terms: t ≤ s+right is
// "t ≤ s or |s−t| ≤ right".
MaskSpec band(int left, int right) {
    if (left == right) return MaskSpec::window(left);
    if (right == 0) return MaskSpec::causalWindow(left);
    return MaskSpec::both(
        {MaskSpec::window(left), MaskSpec::either({MaskSpec::causal(), MaskSpec::window(right)})});
}
} // namespace

MaskSpec conventionMask(MaskConvention c, int k) {
    switch (c) {
    case MaskConvention::WindowRadius:
        requireRadius(k);
        return MaskSpec::window(k);
    case MaskConvention::WindowKeysCentred:
        requireKeys(k);
        return band(k / 2, k - 1 - k / 2);
    case MaskConvention::CausalWindowRadius:
        requireRadius(k);
        return MaskSpec::causalWindow(k);
    case MaskConvention::CausalWindowKeys:
        requireKeys(k);
        return MaskSpec::causalWindow(k - 1);
    case MaskConvention::CausalTopLeft:
    case MaskConvention::CausalBottomRight:
        return MaskSpec::causal();
    }
    return MaskSpec::all();
}

int conventionKeys(MaskConvention c, int k) {
    switch (c) {
    case MaskConvention::WindowRadius:
        return 2 * k + 1;
    case MaskConvention::CausalWindowRadius:
        return k + 1;
    case MaskConvention::WindowKeysCentred:
    case MaskConvention::CausalWindowKeys:
        return k;
    default:
        return -1;
    }
}

std::string conventionLabel(MaskConvention c, int k) {
    switch (c) {
    case MaskConvention::WindowRadius:
        return "inclusive radius r = " + str(k) + ": |s−t| ≤ " + str(k) + " (" + str(2 * k + 1) +
               " keys)";
    case MaskConvention::WindowKeysCentred:
        return "W = " + str(k) + " keys centred: s−" + str(k / 2) + " ≤ t ≤ s+" +
               str(k - 1 - k / 2) + " (" + str(k) + " keys)";
    case MaskConvention::CausalWindowRadius:
        return "radius r = " + str(k) + ": s−" + str(k) + " ≤ t ≤ s (" + str(k + 1) + " keys)";
    case MaskConvention::CausalWindowKeys:
        return "W = " + str(k) + " keys: s−" + str(k) + " < t ≤ s (" + str(k) +
               " keys; Mistral, flash-attn window_size=(" + str(k - 1) + ", 0))";
    case MaskConvention::CausalTopLeft:
        return "causal, top-left aligned: t ≤ s";
    case MaskConvention::CausalBottomRight:
        return "causal, bottom-right aligned: t ≤ s + (keys − queries)";
    }
    return {};
}

const std::vector<ConventionPair>& conventionPairs() {
    static const std::vector<ConventionPair> pairs = {
        {MaskConvention::WindowRadius, MaskConvention::WindowKeysCentred,
         "sliding window: inclusive radius r vs W keys centred",
         "A radius r allows 2r+1 keys; a window of W keys allows W. Reading one library's "
         "number with the other's convention widens or narrows every row."},
        {MaskConvention::CausalWindowRadius, MaskConvention::CausalWindowKeys,
         "causal sliding window: radius r vs W keys",
         "A causal radius r allows r+1 keys (the query and r before it); Mistral's sliding "
         "window W and flash-attn's window_size=(W−1, 0) allow W keys, the query included."},
        {MaskConvention::CausalTopLeft, MaskConvention::CausalBottomRight,
         "causal: top-left vs bottom-right alignment",
         "On a square n×n mask both are t ≤ s and the diff is empty. They differ when queries "
         "and keys have different lengths (decoding with a KV cache, chunked prefill): "
         "PyTorch's is_causal / tril is top-left, flash-attn ≥ 2.1 is bottom-right."},
    };
    return pairs;
}

std::optional<ConventionMatch> conventionOf(const MaskSpec& mask) {
    const auto first = [](MaskConvention c, int k) -> std::optional<ConventionMatch> {
        const std::vector<ConventionPair>& pairs = conventionPairs();
        for (std::size_t i = 0; i < pairs.size(); ++i)
            if (pairs[i].a == c) return ConventionMatch{i, k};
        return std::nullopt;
    };
    switch (mask.kind) {
    case MaskSpec::Kind::Window:
        return first(MaskConvention::WindowRadius, mask.radius);
    case MaskSpec::Kind::CausalWindow:
        return first(MaskConvention::CausalWindowRadius, mask.radius);
    case MaskSpec::Kind::Causal:
        return first(MaskConvention::CausalTopLeft, -1);
    default:
        return std::nullopt;
    }
}

BoolMatrix rectangularCausal(int queries, int keys, CausalAlignment alignment) {
    if (queries < 0 || keys < 0) throw InputError("lengths: must be non-negative");
    const int offset = alignment == CausalAlignment::BottomRight ? keys - queries : 0;
    BoolMatrix m(queries, keys);
    for (int s = 0; s < queries; ++s)
        for (int t = 0; t < keys; ++t)
            m(s, t) = t <= s + offset;
    return m;
}

std::string alignmentName(CausalAlignment alignment) {
    return alignment == CausalAlignment::BottomRight ? "bottom-right" : "top-left";
}

CausalAlignment parseAlignment(const std::string& name, const std::string& field) {
    if (name == "bottom-right") return CausalAlignment::BottomRight;
    if (name == "top-left") return CausalAlignment::TopLeft;
    throw InputError(field, "\"" + name + "\" is not an alignment: bottom-right or top-left");
}

} // namespace attnlab
