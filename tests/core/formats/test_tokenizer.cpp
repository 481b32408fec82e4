// SPDX-License-Identifier: GPL-3.0-or-later
// Byte-level BPE tokenizers from tokenizer.json: the ids Hugging Face `tokenizers` gives for
// tricky texts with tokenizers trained as GPT-2, Llama 3 and Qwen2 are configured
// (tests/fixtures/tokenizers, made by scripts/hf-fixtures/make_tokenizer_fixtures.py), decoding
// round trips, axis labels, and malformed or unsupported input refused with InputError.
#include "core/base/error.h"
#include "core/formats/bpe_tokenizer.h"
#include "core/test_support.h"

#include <QElapsedTimer>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using namespace attnlab;
using namespace attnlab::test;

namespace {

const char* const styles[] = {"gpt2", "llama3", "qwen2"};

std::filesystem::path fixture(const std::string& style, const std::string& file) {
    return std::filesystem::path(ATTNLAB_SOURCE_DIR) / "tests/fixtures/tokenizers" / style / file;
}

std::string fileText(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

nlohmann::json fixtureJson(const std::string& style, const std::string& file) {
    return nlohmann::json::parse(fileText(fixture(style, file)));
}

/// A tokenizer.json with the vocabulary a b c ab bc abc, the merges "b c" then "a b", the
/// GPT-2 pre-tokenizer and one added token "<x>"; `edit` changes it before it is read.
template <class Edit>
std::string tinyTokenizer(Edit edit) {
    nlohmann::json j = {
        {"added_tokens",
         {{{"id", 6},
           {"content", "<x>"},
           {"special", true},
           {"lstrip", false},
           {"rstrip", false},
           {"normalized", false},
           {"single_word", false}}}},
        {"normalizer", nullptr},
        {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}}},
        {"decoder", {{"type", "ByteLevel"}}},
        {"model",
         {{"type", "BPE"},
          {"vocab", {{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}, {"bc", 4}, {"abc", 5}}},
          {"merges", {"b c", "a b"}}}}};
    edit(j);
    return j.dump();
}

std::string tinyTokenizer() {
    return tinyTokenizer([](nlohmann::json&) {});
}

std::vector<int> ids(std::initializer_list<int> list) {
    return list;
}

QString idText(const std::vector<int>& v) {
    QStringList parts;
    for (int id : v)
        parts << QString::number(id);
    return parts.join(' ');
}

} // namespace

class TestTokenizer : public QObject {
    Q_OBJECT
private slots:
    void matchesHuggingFace_data() {
        QTest::addColumn<QString>("style");
        QTest::addColumn<int>("index");
        for (const char* style : styles) {
            const nlohmann::json expected = fixtureJson(style, "expected.json");
            for (std::size_t i = 0; i < expected["cases"].size(); ++i)
                QTest::addRow("%s %zu", style, i) << QString(style) << int(i);
        }
    }

    void matchesHuggingFace() {
        QFETCH(QString, style);
        QFETCH(int, index);
        const BpeTokenizer tokenizer =
            BpeTokenizer::fromFile(fixture(style.toStdString(), "tokenizer.json"));
        const nlohmann::json c = fixtureJson(style.toStdString(), "expected.json")["cases"][index];
        const std::string text = c["text"];
        if (style == "qwen2" && c["nfc_changes"].get<bool>()) {
            QVERIFY(inputErrorOf([&] { tokenizer.encode(text); }).contains("NFC"));
            return;
        }
        const std::vector<int> got = tokenizer.encode(text);
        QCOMPARE(idText(got), idText(c["ids"].get<std::vector<int>>()));
        QCOMPARE(tokenizer.decode(got), text);
        for (int id : got)
            QVERIFY(!tokenizer.tokenString(id).empty());
    }

    void vocabularySizeCountsAddedTokens() {
        QCOMPARE(BpeTokenizer::fromFile(fixture("gpt2", "tokenizer.json")).vocabSize(), 480);
        QCOMPARE(BpeTokenizer::fromJson(tinyTokenizer()).vocabSize(), 7);
    }

    void roundTripsLongText() {
        const BpeTokenizer tokenizer = BpeTokenizer::fromFile(fixture("llama3", "tokenizer.json"));
        std::string text;
        while (text.size() < 20000)
            text += "Don't panic: 42 caf\u00e9s, \u6f22\u5b57 and \U0001f600!\r\n\t  indented  ";
        QElapsedTimer timer;
        timer.start();
        const std::vector<int> got = tokenizer.encode(text);
        QVERIFY2(timer.elapsed() < 500, qPrintable(QString::number(timer.elapsed()) + " ms"));
        QCOMPARE(tokenizer.decode(got), text);
    }

    void mergesByRank() {
        const BpeTokenizer tokenizer = BpeTokenizer::fromJson(tinyTokenizer());
        // "b c" ranks before "a b", and no merge joins a with bc.
        QCOMPARE(tokenizer.encode("abc"), ids({0, 4}));
        QCOMPARE(tokenizer.encode("ab"), ids({3}));
        QCOMPARE(tokenizer.encode("a<x>bc"), ids({0, 6, 4}));
    }

    void ignoreMergesTakesWholeVocabularyWords() {
        const BpeTokenizer tokenizer = BpeTokenizer::fromJson(
            tinyTokenizer([](nlohmann::json& j) { j["model"]["ignore_merges"] = true; }));
        QCOMPARE(tokenizer.encode("abc"), ids({5}));
        QCOMPARE(tokenizer.encode("abca"), ids({0, 4, 0}));
    }

    void mergesAsPairs() {
        const BpeTokenizer tokenizer = BpeTokenizer::fromJson(tinyTokenizer([](nlohmann::json& j) {
            using nlohmann::json;
            j["model"]["merges"] = json::array({json::array({"b", "c"}), json::array({"a", "b"})});
        }));
        QCOMPARE(tokenizer.encode("abc"), ids({0, 4}));
    }

    void stripsSpaceAroundAddedTokens() {
        const BpeTokenizer tokenizer = BpeTokenizer::fromJson(tinyTokenizer([](nlohmann::json& j) {
            j["added_tokens"][0]["lstrip"] = true;
            j["added_tokens"][0]["rstrip"] = true;
        }));
        QCOMPARE(tokenizer.encode("a  <x> \tb"), ids({0, 6, 1}));
    }

    void unknownBytesAreDroppedOrUnk() {
        QCOMPARE(BpeTokenizer::fromJson(tinyTokenizer()).encode("adc"), ids({0, 2}));
        const BpeTokenizer withUnk = BpeTokenizer::fromJson(tinyTokenizer([](nlohmann::json& j) {
            j["model"]["unk_token"] = "c";
            j["model"]["fuse_unk"] = true;
        }));
        QCOMPARE(withUnk.encode("addb"), ids({0, 2, 1}));
        const BpeTokenizer unfused = BpeTokenizer::fromJson(
            tinyTokenizer([](nlohmann::json& j) { j["model"]["unk_token"] = "c"; }));
        QCOMPARE(unfused.encode("addb"), ids({0, 2, 2, 1}));
    }

    void prefixSpace() {
        nlohmann::json j = fixtureJson("gpt2", "tokenizer.json");
        const BpeTokenizer plain = BpeTokenizer::fromJson(j.dump());
        j["pre_tokenizer"]["add_prefix_space"] = true;
        const BpeTokenizer prefixed = BpeTokenizer::fromJson(j.dump());
        QCOMPARE(prefixed.encode("hello world"), plain.encode(" hello world"));
        QCOMPARE(prefixed.encode(" hello"), plain.encode(" hello"));
        QCOMPARE(prefixed.encode(""), ids({}));
    }

    void labels() {
        const BpeTokenizer tokenizer = BpeTokenizer::fromFile(fixture("gpt2", "tokenizer.json"));
        const std::vector<int> space = tokenizer.encode(" ");
        QCOMPARE(space.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(tokenizer.tokenString(space[0])), QString("\u2423"));
        QCOMPARE(tokenizer.tokenString(tokenizer.encode("\n").at(0)), std::string("\\n"));
        QCOMPARE(tokenizer.tokenString(tokenizer.encode("\x01").at(0)), std::string("\\x01"));
        QCOMPARE(tokenizer.tokenString(0), std::string("<|endoftext|>"));
        // The first byte of an emoji alone is not UTF-8.
        const std::vector<int> emoji = tokenizer.encode("\U0001f9ff");
        QCOMPARE(tokenizer.tokenString(emoji.front()).substr(0, 4), std::string("\\xF0"));
        QCOMPARE(tokenizer.decode({emoji.front()}), std::string("\uFFFD"));
    }

    void refusesBadText() {
        const BpeTokenizer tokenizer = BpeTokenizer::fromFile(fixture("gpt2", "tokenizer.json"));
        QCOMPARE(inputErrorOf([&] { tokenizer.encode("ab\xff"); }),
                 QString("text: not valid UTF-8 at byte 2"));
        QCOMPARE(inputErrorOf([&] { tokenizer.encode("\xed\xa0\x80"); }),
                 QString("text: not valid UTF-8 at byte 0"));
        QCOMPARE(inputErrorOf([&] { tokenizer.decode({100000}); }),
                 QString("token id 100000 is not in the vocabulary"));
        QCOMPARE(inputErrorOf([&] { tokenizer.tokenString(-1); }),
                 QString("token id -1 is not in the vocabulary"));
    }

    void refusesBadFiles_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("message");
        const auto row = [](const char* name, const std::string& json, const char* message) {
            QTest::newRow(name) << QString::fromStdString(json) << QString(message);
        };
        const std::string good = tinyTokenizer();
        row("malformed", "{\"model\": ", "tokenizer.json: not valid JSON");
        row("truncated", good.substr(0, good.size() / 2), "tokenizer.json: not valid JSON");
        row("not an object", "[1, 2]", "tokenizer.json: must be an object");
        row("no model", tinyTokenizer([](auto& j) { j.erase("model"); }),
            "tokenizer.json: model: is required");
        row("word piece", tinyTokenizer([](auto& j) { j["model"]["type"] = "WordPiece"; }),
            "tokenizer.json: model.type: \"WordPiece\" is not supported (byte-level BPE only)");
        row("no vocab", tinyTokenizer([](auto& j) { j["model"].erase("vocab"); }),
            "tokenizer.json: model.vocab: is required");
        row("vocab id", tinyTokenizer([](auto& j) { j["model"]["vocab"]["a"] = -3; }),
            "tokenizer.json: model.vocab[\"a\"]: must be an integer in 0..4194303");
        row("vocab duplicate id", tinyTokenizer([](auto& j) { j["model"]["vocab"]["x"] = 0; }),
            "tokenizer.json: model.vocab[\"x\"]: id 0 is also \"a\"");
        row("merge unknown", tinyTokenizer([](auto& j) {
                j["model"]["merges"] = {"b c", "a q"};
            }),
            "tokenizer.json: model.merges[1]: \"q\" is not in model.vocab");
        row("merge result unknown", tinyTokenizer([](auto& j) { j["model"]["merges"] = {"c a"}; }),
            "tokenizer.json: model.merges[0]: \"ca\" is not in model.vocab");
        row("merge spaces", tinyTokenizer([](auto& j) { j["model"]["merges"] = {"a  b"}; }),
            "tokenizer.json: model.merges[0]: must be two tokens separated by one space");
        row("merge triple", tinyTokenizer([](auto& j) {
                j["model"]["merges"] =
                    nlohmann::json::array({nlohmann::json::array({"a", "b", "c"})});
            }),
            "tokenizer.json: model.merges[0]: must be a pair of tokens");
        row("merges object", tinyTokenizer([](auto& j) {
                j["model"]["merges"] = {{"a", "b"}};
            }),
            "tokenizer.json: model.merges: must be an array");
        row("merge number", tinyTokenizer([](auto& j) { j["model"]["merges"] = {7}; }),
            "tokenizer.json: model.merges[0]: must be a string");
        row("dropout", tinyTokenizer([](auto& j) { j["model"]["dropout"] = 0.1; }),
            "tokenizer.json: model.dropout: is not supported (must be null)");
        row("unk missing", tinyTokenizer([](auto& j) { j["model"]["unk_token"] = "<unk>"; }),
            "tokenizer.json: model.unk_token: \"<unk>\" is not in model.vocab");
        row("unknown pattern", tinyTokenizer([](auto& j) {
                j["pre_tokenizer"] = {{"type", "Sequence"},
                                      {"pretokenizers",
                                       {{{"type", "Split"},
                                         {"pattern", {{"Regex", "\\s+"}}},
                                         {"behavior", "Isolated"},
                                         {"invert", false}},
                                        {{"type", "ByteLevel"}, {"use_regex", false}}}}};
            }),
            "tokenizer.json: pre_tokenizer.pretokenizers[0].pattern.Regex: unknown pattern (the "
            "GPT-2, Llama 3 and Qwen2 patterns are supported)");
        row("no byte level last", tinyTokenizer([](auto& j) {
                j["pre_tokenizer"] = {{"type", "Sequence"},
                                      {"pretokenizers", {{{"type", "Whitespace"}}}}};
            }),
            "tokenizer.json: pre_tokenizer.pretokenizers[0].type: \"Whitespace\" is not "
            "supported (ByteLevel last)");
        row("metaspace", tinyTokenizer([](auto& j) {
                j["pre_tokenizer"] = {{"type", "Metaspace"}};
            }),
            "tokenizer.json: pre_tokenizer.type: \"Metaspace\" is not supported (ByteLevel or "
            "Sequence only)");
        row("no pre-tokenizer", tinyTokenizer([](auto& j) { j["pre_tokenizer"] = nullptr; }),
            "tokenizer.json: pre_tokenizer: must be an object");
        row("lowercase", tinyTokenizer([](auto& j) {
                j["normalizer"] = {{"type", "Lowercase"}};
            }),
            "tokenizer.json: normalizer.type: \"Lowercase\" is not supported (only NFC or null)");
        row("decoder", tinyTokenizer([](auto& j) {
                j["decoder"] = {{"type", "WordPiece"}};
            }),
            "tokenizer.json: decoder.type: \"WordPiece\" is not supported (ByteLevel only)");
        row("empty added", tinyTokenizer([](auto& j) { j["added_tokens"][0]["content"] = ""; }),
            "tokenizer.json: added_tokens[0].content: must not be empty");
        row("single word",
            tinyTokenizer([](auto& j) { j["added_tokens"][0]["single_word"] = true; }),
            "tokenizer.json: added_tokens[0].single_word: true is not supported");
        row("truncation", tinyTokenizer([](auto& j) {
                j["truncation"] = {{"max_length", 3}};
            }),
            "tokenizer.json: truncation: is not supported (must be null)");
    }

    void refusesBadFiles() {
        QFETCH(QString, json);
        QFETCH(QString, message);
        const QString error = inputErrorOf([&] { BpeTokenizer::fromJson(json.toStdString()); });
        QVERIFY2(error.startsWith(message), qPrintable(error));
    }

    void refusesMissingFile() {
        QCOMPARE(inputErrorOf([] { BpeTokenizer::fromFile("/nonexistent/tokenizer.json"); }),
                 QString("/nonexistent/tokenizer.json: cannot read the file"));
    }
};

QTEST_GUILESS_MAIN(TestTokenizer)
#include "test_tokenizer.moc"
