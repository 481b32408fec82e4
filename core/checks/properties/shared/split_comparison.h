// SPDX-License-Identifier: GPL-3.0-or-later
// The comparison the batch properties and all-true-mask are drawn with: the tokens evaluated
// the check's other way (split across parts, inside a batch, in a worker's half of it, on the
// unmasked code path) beside the plain evaluation. The maps show the scenario's tokens, the
// first sequence of the batch; a witness in another sequence is named in the note.
#pragma once

#include "core/checks/property_comparison.h"

#include <string>

namespace attnlab {

/// A Kind::Split comparison of `how`, with the seed the check drew its batch from, `summary`,
/// and `note` followed by the sequence the witness is in when it is not the tokens.
PropertyComparison splitComparison(const ComparisonSource& source,
                                   PropertyComparison::SplitKind how, std::string summary,
                                   std::string note = {});

/// The batch the check evaluates, in words: "4 sequences (the tokens and 3 drawn)".
std::string batchInWords(const ComparisonSource& source);

} // namespace attnlab
