// SPDX-License-Identifier: GPL-3.0-or-later
// Parsing and writing text tables.
#include "core/formats/table_text.h"

#include "core/base/error.h"
#include "core/base/matrix_size.h"

#include <charconv>
#include <fstream>
#include <sstream>
#include <vector>

namespace attnlab {

namespace {

std::string_view trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string_view> splitCells(std::string_view line, char separator) {
    std::vector<std::string_view> cells;
    if (separator != ' ') {
        std::size_t start = 0;
        for (std::size_t i = 0; i <= line.size(); ++i)
            if (i == line.size() || line[i] == separator) {
                cells.push_back(trim(line.substr(start, i - start)));
                start = i + 1;
            }
        return cells;
    }
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
            ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
            ++i;
        if (i > start) cells.push_back(line.substr(start, i - start));
    }
    return cells;
}

bool isNumber(std::string_view cell) {
    try {
        parseRational(cell);
        return true;
    } catch (const InputError&) {
        return false;
    }
}

} // namespace

Matrix<Rational> parseTable(std::string_view text) {
    char separator = ' ';
    for (char c : {'\t', ',', ';'})
        if (text.find(c) != std::string_view::npos) {
            separator = c;
            break;
        }
    std::vector<std::vector<std::string_view>> rows;
    std::size_t start = 0;
    int lineNumber = 0;
    std::vector<int> lineOf;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = trim(text.substr(start, end - start));
        ++lineNumber;
        start = end + 1;
        if (line.empty()) continue;
        auto cells = splitCells(line, separator);
        const bool header = rows.empty() && std::none_of(cells.begin(), cells.end(), isNumber);
        if (header) continue;
        rows.push_back(std::move(cells));
        lineOf.push_back(lineNumber);
    }
    if (rows.empty()) throw InputError("the table has no numeric rows");
    const std::size_t cols = rows.front().size();
    checkMatrixSize(static_cast<long long>(rows.size()), static_cast<long long>(cols), "table");
    Matrix<Rational> m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(cols));
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const std::string where = "line " + std::to_string(lineOf[i]);
        if (rows[i].size() != cols)
            throw InputError(where + " has " + std::to_string(rows[i].size()) +
                             " entries, the first row has " + std::to_string(cols));
        for (std::size_t j = 0; j < cols; ++j) {
            try {
                m(Eigen::Index(i), Eigen::Index(j)) = parseRational(rows[i][j]);
            } catch (const InputError& e) {
                throw InputError(where + ", column " + std::to_string(j + 1) + ": " + e.what());
            }
        }
    }
    return m;
}

Matrix<Rational> loadTableFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path.string() + ": cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    try {
        return parseTable(text.str());
    } catch (const InputError& e) {
        throw InputError(path.string() + ": " + e.what());
    }
}

std::string tableText(const Eigen::MatrixXd& m) {
    std::string out;
    char buffer[32];
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            const auto result = std::to_chars(buffer, buffer + sizeof buffer, m(i, j));
            if (j > 0) out += ',';
            out.append(buffer, result.ptr);
        }
        out += '\n';
    }
    return out;
}

} // namespace attnlab
