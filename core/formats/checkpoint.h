// SPDX-License-Identifier: GPL-3.0-or-later
// A Hugging Face checkpoint directory's tensors: DIR/model.safetensors, or the shards that
// DIR/model.safetensors.index.json names in its weight_map. Opening maps the files and reads
// their headers only; rows are converted when asked for (core/formats/safetensors.h).
#pragma once

#include "core/formats/safetensors.h"
#include "core/formats/tensor_source.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace attnlab {

class Checkpoint : public TensorSource {
public:
    /// Opens the checkpoint in `directory`; throws InputError naming the directory and what is
    /// wrong (no safetensors file, a malformed index, a missing shard, a tensor that is not in
    /// the shard the index names, a malformed file).
    explicit Checkpoint(const std::filesystem::path& directory);

    bool has(const std::string& name) const;
    /// Every tensor name, sorted.
    std::vector<std::string> names() const;
    /// The tensor's dtype, shape and place; throws InputError naming tensor and directory.
    const SafetensorsTensor& tensor(const std::string& name) const;

    std::pair<long long, long long> shape(const std::string& name) const override;
    RowMajorMatrix<double> readDouble(const std::string& name,
                                      const std::vector<long long>& rows = {}) const override;
    RowMajorMatrix<float> readFloat(const std::string& name,
                                    const std::vector<long long>& rows = {}) const override;
    std::string origin() const override;

private:
    void openSingle(const std::filesystem::path& file);
    void openShards(const std::filesystem::path& index);
    const SafetensorsFile& fileOf(const std::string& name) const;

    std::filesystem::path directory_;
    std::vector<SafetensorsFile> files_;
    std::map<std::string, std::size_t> fileIndex_; // tensor name -> index into files_
};

} // namespace attnlab
