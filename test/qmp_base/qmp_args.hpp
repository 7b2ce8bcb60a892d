// SPDX-License-Identifier: BSD-3-Clause
// An argv that a QMP test owns, NULL-terminated like main's, for the calls
// that take options out of it (QMP_init_msg_passing, take_options).
#ifndef MERIDIAN_TEST_QMP_ARGS_HPP
#define MERIDIAN_TEST_QMP_ARGS_HPP

#include <initializer_list>
#include <string>
#include <vector>

struct Args {
    std::vector<std::string> text;
    std::vector<char *> argv;
    int argc = 0;
    char **pointer = nullptr;

    Args(std::initializer_list<const char *> args) : text(args.begin(), args.end())
    {
        for (auto &t : text) {
            argv.push_back(t.data());
        }
        argv.push_back(nullptr);
        argc = static_cast<int>(text.size());
        pointer = argv.data();
    }
    // What argv holds now, up to argc.
    std::string now() const
    {
        std::string out;
        for (int i = 0; i < argc; ++i) {
            out += (i == 0 ? "" : " ") + std::string(pointer[i]);
        }
        return out;
    }
    // Whether argv[argc] is NULL, as main's is.
    bool terminated() const { return pointer[argc] == nullptr; }
};

#endif
