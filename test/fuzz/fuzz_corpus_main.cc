// SPDX-License-Identifier: BSD-3-Clause
// main() for a fuzz target built without libFuzzer: runs the target's
// function once over every file of its seed corpus, so that `make check`
// keeps the corpus (and any crash input added to it) as a regression test
// with any compiler.
//
//   NAME_fuzz_corpus              every file under $MERIDIAN_FUZZ_CORPUS/NAME
//   NAME_fuzz_corpus PATH...      these files, or every file under these directories
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size);

namespace fs = std::filesystem;

int main(int argc, char **argv)
{
    std::vector<fs::path> roots;
    for (int i = 1; i < argc; ++i) {
        roots.emplace_back(argv[i]);
    }
    if (roots.empty()) {
        const char *corpus = std::getenv("MERIDIAN_FUZZ_CORPUS");
        if (corpus == nullptr || *corpus == '\0') {
            std::fprintf(stderr, "%s: set MERIDIAN_FUZZ_CORPUS or name files\n", argv[0]);
            return EXIT_FAILURE;
        }
        roots.push_back(fs::path(corpus) / MERIDIAN_FUZZ_TARGET);
    }

    std::vector<fs::path> files;
    for (const auto &root : roots) {
        std::error_code error;
        if (fs::is_directory(root, error)) {
            for (const auto &entry : fs::recursive_directory_iterator(root, error)) {
                if (entry.is_regular_file()) {
                    files.push_back(entry.path());
                }
            }
        } else if (fs::is_regular_file(root, error)) {
            files.push_back(root);
        }
        if (error) {
            std::fprintf(stderr, "%s: %s: %s\n", argv[0], root.c_str(), error.message().c_str());
            return EXIT_FAILURE;
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "%s: no input files found\n", argv[0]);
        return EXIT_FAILURE;
    }
    std::sort(files.begin(), files.end());
    for (const auto &file : files) {
        std::ifstream in(file, std::ios::binary);
        const std::string data((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        if (!in.good() && !in.eof()) {
            std::fprintf(stderr, "%s: cannot read %s\n", argv[0], file.c_str());
            return EXIT_FAILURE;
        }
        // A broken promise aborts inside, naming it; say which file it was.
        std::fprintf(stderr, "%s\n", file.c_str());
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t *>(data.data()), data.size());
    }
    std::printf("%s: %zu inputs, no fault\n", MERIDIAN_FUZZ_TARGET, files.size());
    return EXIT_SUCCESS;
}
