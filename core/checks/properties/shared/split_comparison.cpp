// SPDX-License-Identifier: GPL-3.0-or-later
// The split comparison's seed, the batch in words, and the witness's sequence.
#include "core/checks/properties/shared/split_comparison.h"

#include "core/checks/check_support.h"

namespace attnlab {

namespace {

/// The seed the check drew its batch from, as its report says (0 without one).
std::uint64_t batchSeed(const ComparisonSource& source) {
    const nlohmann::json& seed = source.checked("seed");
    return seed.is_number() ? seed.get<std::uint64_t>() : 0;
}

} // namespace

PropertyComparison splitComparison(const ComparisonSource& source,
                                   PropertyComparison::SplitKind how, std::string summary,
                                   std::string note) {
    PropertyComparison c;
    c.kind = PropertyComparison::Kind::Split;
    c.split = how;
    c.seed = batchSeed(source);
    c.summary = std::move(summary);
    c.note = std::move(note);
    if (auto example = firstInteger(source.witness("example")); example && *example > 0)
        c.note += std::string(c.note.empty() ? "" : "; ") + "the witness is in sequence " +
                  std::to_string(*example) + " of the batch, the maps show sequence 0 (the tokens)";
    return c;
}

std::string batchInWords(const ComparisonSource& source) {
    const Scenario& s = source.scenario;
    const std::size_t batch = 1 + batchMates(s, batchSeed(source)).size();
    return std::to_string(batch) + " sequences (" +
           (s.batch.empty() ? "the tokens and " + std::to_string(kDrawnSequences) + " drawn"
                            : "the scenario's batch") +
           ")";
}

} // namespace attnlab
