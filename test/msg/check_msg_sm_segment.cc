// SPDX-License-Identifier: BSD-3-Clause
// The sm transport's segments (components/msg_sm/msg_sm_segment.cc, compiled in):
// names no other job, process or init produces, a name that exists already
// refused with a message and left alone, and only the creator removing a
// name.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <set>
#include <string>

#include "components/msg_sm/msg_sm_segment.hpp"
#include "test/support/meridian_test.hpp"

namespace shm = meridian::msg_sm;

namespace
{

bool exists(const std::string &name)
{
    const int fd = ::shm_open(name.c_str(), O_RDONLY, 0);
    if (fd < 0) {
        return false;
    }
    ::close(fd);
    return true;
}

START_TEST(names_are_new_every_time)
{
    ck_assert_text_eq(shm::segment_name(4242, 7, 0x0123456789abcdefULL),
                      "/meridian-4242-7-0123456789abcdef");
    ck_assert_text_eq(shm::segment_name(1, 1, 0), "/meridian-1-1-0000000000000000");
    // The longest a name can be is far below NAME_MAX.
    const std::string longest = shm::segment_name(INT_MAX, UINT64_MAX, UINT64_MAX);
    ck_assert_text_eq(longest, "/meridian-2147483647-18446744073709551615-ffffffffffffffff");
    ck_assert_uint_lt(longest.size(), NAME_MAX);
    // This process's names: its pid, a count that goes up, and random bits
    // that differ each time.
    const std::string mine = "/meridian-" + std::to_string(::getpid()) + "-";
    std::set<std::string> names;
    std::set<std::string> randoms;
    unsigned long previous = 0;
    for (int i = 0; i < 1000; ++i) {
        const std::string name = shm::segment_name();
        ck_assert_msg(name.starts_with(mine), "%s does not start with %s", name.c_str(),
                      mine.c_str());
        ck_assert_int_eq(std::count(name.begin(), name.end(), '/'), 1);
        const std::string rest = name.substr(mine.size());
        const auto dash = rest.find('-');
        ck_assert_uint_ne(dash, std::string::npos);
        const unsigned long generation = std::stoul(rest.substr(0, dash));
        ck_assert_uint_gt(generation, previous);
        previous = generation;
        ck_assert_uint_eq(rest.size() - dash - 1, 16);
        randoms.insert(rest.substr(dash + 1));
        names.insert(name);
    }
    ck_assert_uint_eq(names.size(), 1000);
    ck_assert_uint_eq(randoms.size(), 1000);
}
END_TEST

// Another process's segment under the name create is given: create fails
// and says so, and the segment keeps its name, size and bytes.
START_TEST(an_existing_name_is_left_alone)
{
    const std::string name = shm::segment_name();
    const int fd = ::shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    ck_assert_msg(fd >= 0, "shm_open %s: %s", name.c_str(), std::strerror(errno));
    ck_assert_int_eq(::ftruncate(fd, 4096), 0);
    void *base = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ck_assert_ptr_ne(base, MAP_FAILED);
    std::memset(base, 0x5a, 4096);
    ::munmap(base, 4096);
    ::close(fd);

    auto segment = shm::Segment::create(name, 2, 8, 256);
    ck_assert(!segment);
    ck_assert_int_eq(segment.error().status, MERIDIAN_ERR_OUT_OF_RESOURCE);
    ck_assert_text_eq(segment.error().message,
                      "msg sm: cannot create the shared-memory segment " + name +
                          ": File exists (another process made it; it is left as it is)");

    const int again = ::shm_open(name.c_str(), O_RDONLY, 0);
    ck_assert_msg(again >= 0, "%s is gone: %s", name.c_str(), std::strerror(errno));
    struct stat st {
    };
    ck_assert_int_eq(::fstat(again, &st), 0);
    ck_assert_int_eq(st.st_size, 4096);
    base = ::mmap(nullptr, 4096, PROT_READ, MAP_SHARED, again, 0);
    ck_assert_ptr_ne(base, MAP_FAILED);
    const auto *bytes = static_cast<const unsigned char *>(base);
    ck_assert_int_eq(std::count(bytes, bytes + 4096, 0x5a), 4096);
    ::munmap(base, 4096);
    ::close(again);
    ::shm_unlink(name.c_str());
}
END_TEST

// A peer's attachment never removes the name; the creator does, once.
START_TEST(only_the_creator_removes_the_name)
{
    const std::string name = shm::segment_name();
    {
        auto created = shm::Segment::create(name, 2, 8, 256);
        ck_assert_msg(static_cast<bool>(created), "%s",
                      created ? "" : created.error().message.c_str());
        {
            auto attached = shm::Segment::attach(name);
            ck_assert_msg(static_cast<bool>(attached), "%s",
                          attached ? "" : attached.error().message.c_str());
            ck_assert_uint_eq(attached->rings(), 2);
            attached->unlink();
        }
        ck_assert(exists(name));
        created->unlink();
        ck_assert(!exists(name));
        // The name is free again, and a new segment under it is not the
        // old one's to remove.
        auto second = shm::Segment::create(name, 2, 8, 256);
        ck_assert(static_cast<bool>(second));
        created->unlink();
        ck_assert(exists(name));
    }
    ck_assert(!exists(name));
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("msg_sm_segment");
    TCase *tcase = tcase_create("segments");
    tcase_add_test(tcase, names_are_new_every_time);
    tcase_add_test(tcase, an_existing_name_is_left_alone);
    tcase_add_test(tcase, only_the_creator_removes_the_name);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}
