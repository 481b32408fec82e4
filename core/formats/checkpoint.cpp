// SPDX-License-Identifier: GPL-3.0-or-later
// Checkpoint: a directory's safetensors files behind one TensorSource.
#include "core/formats/checkpoint.h"

#include "core/base/error.h"
#include "core/formats/json_reader.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>

namespace attnlab {

namespace {

const char* const singleFileName = "model.safetensors";
const char* const indexFileName = "model.safetensors.index.json";
constexpr std::uintmax_t maxIndexBytes = 100'000'000;

std::string quoted(const std::string& name) {
    return "\"" + name + "\"";
}

nlohmann::json readJsonFile(const std::filesystem::path& path) {
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) throw InputError(path.string(), "cannot read: " + ec.message());
    if (size > maxIndexBytes)
        throw InputError(path.string(),
                         "is larger than " + std::to_string(maxIndexBytes) + " bytes");
    std::ifstream in(path, std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (!in) throw InputError(path.string(), "cannot read the file");
    nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded()) throw InputError(path.string(), "is not valid JSON");
    return json;
}

/// A shard's file name as the index gives it: a plain name inside the directory.
std::string shardName(const JsonReader& node) {
    const std::string name = node.string();
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
        name.find('\\') != std::string::npos)
        node.fail(quoted(name) + " is not a file name in the checkpoint's directory");
    return name;
}

} // namespace

Checkpoint::Checkpoint(const std::filesystem::path& directory) : directory_(directory) {
    if (!std::filesystem::is_directory(directory)) throw InputError(origin(), "is not a directory");
    if (std::filesystem::exists(directory / singleFileName))
        openSingle(directory / singleFileName);
    else if (std::filesystem::exists(directory / indexFileName))
        openShards(directory / indexFileName);
    else
        throw InputError(origin(), std::string("has neither ") + singleFileName + " nor " +
                                       indexFileName + " (only safetensors checkpoints are read)");
}

void Checkpoint::openSingle(const std::filesystem::path& file) {
    files_.emplace_back(file);
    for (const std::string& name : files_.back().names())
        fileIndex_[name] = 0;
}

void Checkpoint::openShards(const std::filesystem::path& index) {
    const nlohmann::json json = readJsonFile(index);
    if (!json.is_object() || !json.contains("weight_map"))
        throw InputError(index.string(), "must be a JSON object with a \"weight_map\"");
    const JsonReader weightMap(json.at("weight_map"), index.string() + ": weight_map");
    if (!weightMap.isObject() || weightMap.node().empty())
        weightMap.fail("must be a non-empty object of tensor name -> shard file");
    std::map<std::string, std::size_t> shardIndex;
    for (const auto& item : weightMap.node().items()) {
        const JsonReader entry = weightMap.at(item.key());
        const std::string shard = shardName(entry);
        if (!shardIndex.count(shard)) {
            if (!std::filesystem::exists(directory_ / shard))
                entry.fail("shard " + quoted(shard) + " is missing from " + origin());
            shardIndex[shard] = files_.size();
            files_.emplace_back(directory_ / shard);
        }
        const std::size_t file = shardIndex[shard];
        if (!files_[file].has(item.key()))
            entry.fail("tensor " + quoted(item.key()) + " is not in shard " + quoted(shard) +
                       " as the index says");
        fileIndex_[item.key()] = file;
    }
}

const SafetensorsFile& Checkpoint::fileOf(const std::string& name) const {
    const auto found = fileIndex_.find(name);
    if (found == fileIndex_.end())
        throw InputError(origin(), "no tensor " + quoted(name) + " in the checkpoint");
    return files_[found->second];
}

bool Checkpoint::has(const std::string& name) const {
    return fileIndex_.count(name) > 0;
}

std::vector<std::string> Checkpoint::names() const {
    std::vector<std::string> names;
    for (const auto& entry : fileIndex_)
        names.push_back(entry.first);
    return names;
}

const SafetensorsTensor& Checkpoint::tensor(const std::string& name) const {
    return fileOf(name).tensor(name);
}

std::pair<long long, long long> Checkpoint::shape(const std::string& name) const {
    const SafetensorsTensor& t = tensor(name);
    return {t.rows, t.cols};
}

RowMajorMatrix<double> Checkpoint::readDouble(const std::string& name,
                                              const std::vector<long long>& rows) const {
    return fileOf(name).readDouble(name, rows);
}

RowMajorMatrix<float> Checkpoint::readFloat(const std::string& name,
                                            const std::vector<long long>& rows) const {
    return fileOf(name).readFloat(name, rows);
}

std::string Checkpoint::origin() const {
    return directory_.string();
}

} // namespace attnlab
