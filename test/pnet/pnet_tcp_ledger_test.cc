// SPDX-License-Identifier: BSD-3-Clause
// pnet_tcp's port ledger without the framework (components/pnet_tcp/
// pnet_tcp_ledger.hpp, compiled in by pnet_tcp_ledger_for_tests.cc): the
// text and its errors, which entries are over, claims next to other jobs and
// held ports, shrinking and leaving, /proc/net, the file under its lock, and
// the private directory.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "components/pnet_tcp/pnet_tcp_ledger.hpp"
#include "test/support/meridian_test.hpp"

namespace ledger = meridian::pnet_tcp::ledger;
namespace fabric = meridian::fabric;
using ledger::Entry;
using ledger::Process;

namespace
{

const ledger::Here here_now{"node01", "boot-a", 1000};

Entry entry(const std::string &nspace, std::vector<std::uint16_t> tcp = {},
            std::vector<Process> procs = {}, std::uint32_t expect = 1)
{
    Entry e;
    e.nspace = nspace;
    e.host = here_now.host;
    e.boot = here_now.boot;
    e.expect = expect;
    e.since = here_now.now;
    e.ports[0] = std::move(tcp);
    e.procs = std::move(procs);
    return e;
}

std::string error_of(std::string_view text)
{
    const auto parsed = ledger::parse(text, "L");
    ck_assert_msg(!parsed, "\"%s\" parsed", std::string(text).c_str());
    ck_assert_int_eq(parsed.error().status, MERIDIAN_ERR_BAD_PARAM);
    return parsed.error().message;
}

// A running set for the rules: these processes run, no other.
ledger::Running running(std::set<std::int32_t> pids)
{
    return [pids](const Process &p) { return pids.count(p.pid) != 0; };
}

std::vector<fabric::PortPoolSpec> pools(const char *text)
{
    auto parsed = fabric::parse_static_ports(text, "pools");
    ck_assert_msg(parsed.ok(), "%s", parsed.ok() ? "" : parsed.error().message.c_str());
    return *parsed;
}

std::string file_text(const std::string &path)
{
    std::ifstream in(path);
    std::stringstream all;
    all << in.rdbuf();
    return all.str();
}

} // namespace

// ---------------------------------------------------------------- the text

START_TEST(text_round_trip)
{
    Entry odd = entry("job with space%", {32000, 32001, 32002, 32010}, {{42, 7}, {43, 0}}, 3);
    odd.ports[1] = {40000};
    odd.left = {{41, 9}};
    const std::vector<Entry> entries = {odd, entry("2032140289", {}, {{50, 1}})};
    const std::string text = ledger::format(entries);
    ck_assert_msg(text.find("job job%20with%20space%25 host=node01 boot=boot-a expect=3 "
                            "since=1000 tcp=32000-32002,32010 udp=40000 procs=42:7,43:0 "
                            "left=41:9\n") != std::string::npos,
                  "%s", text.c_str());
    const auto parsed = ledger::parse(text, "L");
    ck_assert_msg(parsed.ok(), "%s", parsed.ok() ? "" : parsed.error().message.c_str());
    ck_assert(*parsed == entries);
    ck_assert_text_eq(ledger::format(*parsed), text);
}
END_TEST

START_TEST(text_empty_is_an_empty_ledger)
{
    for (const char *text : {"", "\n\n", "# only a comment\n", "meridian-port-ledger 1\n"}) {
        const auto parsed = ledger::parse(text, "L");
        ck_assert_msg(parsed.ok() && parsed->empty(), "\"%s\"", text);
    }
}
END_TEST

START_TEST(text_errors)
{
    const std::string head = "meridian-port-ledger 1\n";
    const std::string job = "job j host=h boot=- expect=1 since=0";
    ck_assert_text_eq(error_of("meridian-port-ledger 2\n"),
                      "L:1:1: expected \"meridian-port-ledger 1\" (the ledger's first line), "
                      "found \"meridian-port-ledger 2\"");
    ck_assert_text_eq(error_of("# c\n  job j\n"),
                      "L:2:3: expected \"meridian-port-ledger 1\" (the ledger's first line), "
                      "found \"job j\"");
    ck_assert_text_eq(error_of(head + "jobs j host=h\n"),
                      "L:2:1: expected a line \"job NSPACE KEY=VALUE ...\", found \"jobs\"");
    ck_assert_text_eq(
        error_of(head + "job\n"),
        "L:2:4: expected the job's namespace after \"job\", found the end of the line");
    ck_assert_text_eq(error_of(head + "job a%4 host=h\n"),
                      "L:2:5: expected a namespace (%XX escapes), found \"a%4\"");
    ck_assert_text_eq(error_of(head + job + " color=red\n"),
                      "L:2:38: expected KEY=VALUE with KEY host, boot, expect, since, tcp, udp, "
                      "procs or left, found \"color=red\"");
    ck_assert_text_eq(error_of(head + job + " since=1\n"), "L:2:38: \"since\" is given twice");
    ck_assert_text_eq(error_of(head + "job j host=h boot=- since=0\n"),
                      "L:2:28: expected expect=... (every job line has host, boot, expect and "
                      "since), found the end of the line");
    ck_assert_text_eq(error_of(head + "job j host=h boot=- expect=0 since=0\n"),
                      "L:2:28: expected expect=N with N 1-4294967295, found \"expect=0\"");
    ck_assert_text_eq(error_of(head + "job j host=h boot=- expect=1 since=x\n"),
                      "L:2:36: expected since=SECONDS (a whole number), found \"since=x\"");
    ck_assert_text_eq(error_of(head + job + " tcp=70000\n"),
                      "L:2:42: expected a port 1-65535, found \"70000\"");
    ck_assert_text_eq(error_of(head + job + " udp=5,5\n"),
                      "L:2:44: port 5 is listed twice in the udp pool");
    ck_assert_text_eq(error_of(head + job + " tcp=10.0.0.0/8:5\n"),
                      "L:2:42: expected tcp=PORTS (e.g. 32000-32003,32010), found "
                      "\"tcp=10.0.0.0/8:5\"");
    ck_assert_text_eq(error_of(head + job + " procs=1:2,3\n"),
                      "L:2:48: expected PID:START (a process id and its start time, e.g. "
                      "4242:1234567), found \"3\"");
    ck_assert_text_eq(error_of(head + job + "\n" + job + "\n"),
                      "L:3:1: job \"j\" of host \"h\" is listed twice (first on line 2)");
}
END_TEST

// ---------------------------------------------------------------- the rules

START_TEST(reclaim_keeps_what_may_run)
{
    std::vector<Entry> entries;
    entries.push_back(entry("running", {1}, {{10, 1}}));
    Entry other_host = entry("elsewhere", {2}, {{11, 1}});
    other_host.host = "node02";
    entries.push_back(other_host);
    Entry earlier_boot = entry("earlier boot", {3}, {{12, 1}});
    earlier_boot.boot = "boot-b";
    entries.push_back(earlier_boot);
    entries.push_back(entry("dead, all joined", {4}, {{13, 1}, {14, 1}}, 2));
    Entry waiting = entry("dead, one on its way", {5}, {{15, 1}}, 2);
    waiting.since = here_now.now - ledger::grace_seconds + 1;
    entries.push_back(waiting);
    Entry late = entry("dead, one never came", {6}, {{16, 1}}, 2);
    late.since = here_now.now - ledger::grace_seconds;
    entries.push_back(late);
    Entry all_left = entry("all left", {7}, {{10, 1}}, 2);
    all_left.procs.clear();
    all_left.left = {{17, 1}, {18, 1}};
    entries.push_back(all_left);

    // Only pid 10 runs; node02's pid 11 is not this host's to judge.
    ck_assert_uint_eq(ledger::reclaim(entries, here_now, running({10})), 4);
    std::vector<std::string> kept;
    for (const auto &e : entries) {
        kept.push_back(e.nspace);
    }
    ck_assert_text_eq(kept.size() == 3 ? kept[0] + "|" + kept[1] + "|" + kept[2] : "?",
                      "running|elsewhere|dead, one on its way");
}
END_TEST

START_TEST(claim_skips_other_jobs_and_held_ports)
{
    std::vector<Entry> entries = {entry("other", {32000, 32001}, {{10, 1}})};
    std::array<std::vector<bool>, 2> held{std::vector<bool>(65536), std::vector<bool>(65536)};
    held[0][32002] = true;
    held[1][32000] = true;
    ledger::ClaimRequest request;
    request.nspace = "mine";
    request.expect = 2;
    request.need = {3, 1};
    // Two pools of tcp on every NIC (one pool), one on a subnet, one udp.
    request.pools = pools("tcp:32000-32004;tcp:32005-32009;tcp:10.0.0.0/8:32000-32009;"
                          "udp:32000-32001");
    const auto claimed = ledger::claim(entries, here_now, {20, 5}, request, held);
    ck_assert_text_eq(fabric::format_static_ports(claimed),
                      "tcp:32003-32005;tcp:10.0.0.0/8:32006-32008;udp:32001");
    ck_assert_uint_eq(entries.size(), 2);
    const Entry &mine = entries[1];
    ck_assert_text_eq(mine.nspace, "mine");
    ck_assert_uint_eq(mine.expect, 2);
    ck_assert(mine.ports[0] ==
              (std::vector<std::uint16_t>{32003, 32004, 32005, 32006, 32007, 32008}));
    ck_assert(mine.ports[1] == std::vector<std::uint16_t>{32001});
    ck_assert(mine.procs == (std::vector<Process>{{20, 5}}));

    // Claimed again (the same job): its own ports count as free.
    request.need = {1, 0};
    const auto again = ledger::claim(entries, here_now, {20, 5}, request, held);
    ck_assert_text_eq(fabric::format_static_ports(again), "tcp:32003;tcp:10.0.0.0/8:32004");
    ck_assert(entries[1].ports[1].empty());
    ck_assert_uint_eq(entries[1].procs.size(), 1);

    // Nothing free: no pool.
    request.need = {1, 0};
    request.pools = pools("tcp:32000-32002");
    ck_assert(ledger::claim(entries, here_now, {20, 5}, request, held).empty());
}
END_TEST

START_TEST(hold_shrinks_and_the_last_to_leave_gives_back)
{
    std::vector<Entry> entries = {entry("job", {32000, 32001, 32002, 32003}, {{20, 1}}, 3)};
    ledger::PortsByProtocol assigned;
    assigned[0] = {32001, 32000, 32001};
    ledger::hold(entries, here_now, {21, 1}, "job", 3, assigned);
    ck_assert(entries[0].ports[0] == (std::vector<std::uint16_t>{32000, 32001}));
    ck_assert(entries[0].procs == (std::vector<Process>{{20, 1}, {21, 1}}));
    // The first leaves: the entry stays.  Leaving twice counts once.
    ledger::leave(entries, here_now, {20, 1}, "job");
    ledger::leave(entries, here_now, {20, 1}, "job");
    ck_assert_uint_eq(entries.size(), 1);
    ck_assert(entries[0].left == (std::vector<Process>{{20, 1}}));
    // A process that never joined (its allocation failed) leaves too.
    ledger::leave(entries, here_now, {22, 1}, "job");
    ck_assert_uint_eq(entries.size(), 1);
    ledger::leave(entries, here_now, {21, 1}, "job");
    ck_assert_uint_eq(entries.size(), 0);
    // A job with no entry: nothing to do.
    ledger::leave(entries, here_now, {21, 1}, "job");
    ck_assert_uint_eq(entries.size(), 0);
    // hold makes the entry when it is missing.
    ledger::hold(entries, here_now, {23, 1}, "late", 1, assigned);
    ck_assert_uint_eq(entries.size(), 1);
    ck_assert_text_eq(entries[0].host, "node01");
}
END_TEST

// A node's leader that ends first hands the entry to the node's other
// processes: it stays while any of them runs, and goes when none does.
START_TEST(hand_over_keeps_the_ports_for_the_heirs)
{
    std::vector<Entry> entries = {entry("job@node01", {32000, 32001, 32002}, {{20, 1}}, 1)};
    const std::vector<Process> heirs = {{21, 7}, {22, 8}, {20, 1}};
    ledger::hand_over(entries, here_now, {20, 1}, "job@node01", heirs);
    ck_assert_uint_eq(entries.size(), 1);
    ck_assert(entries[0].procs == (std::vector<Process>{{21, 7}, {22, 8}}));
    ck_assert(entries[0].left == (std::vector<Process>{{20, 1}}));
    ck_assert_uint_eq(entries[0].expect, 3);
    ck_assert(entries[0].ports[0] == (std::vector<std::uint16_t>{32000, 32001, 32002}));
    // It survives the format, and a reclaim while one heir runs.
    auto parsed = ledger::parse(ledger::format(entries), "ledger");
    ck_assert(parsed.ok());
    ck_assert(*parsed == entries);
    ck_assert_uint_eq(ledger::reclaim(entries, here_now, running({22})), 0);
    ck_assert_uint_eq(entries.size(), 1);
    // When none runs, the next reclaim frees the ports, grace or not.
    ck_assert_uint_eq(ledger::reclaim(entries, here_now, running({})), 1);
    ck_assert_uint_eq(entries.size(), 0);

    // No heirs: as leave().  No entry: nothing.
    entries = {entry("job@node01", {32000}, {{20, 1}}, 1)};
    ledger::hand_over(entries, here_now, {20, 1}, "job@node01", {});
    ck_assert_uint_eq(entries.size(), 0);
    ledger::hand_over(entries, here_now, {20, 1}, "job@node01", heirs);
    ck_assert_uint_eq(entries.size(), 0);
}
END_TEST

// ---------------------------------------------------------------- the host

START_TEST(proc_net_lines)
{
    const char *tcp =
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid\n"
        "   0: 0100007F:7D00 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0\n"
        "   1: 0100007F:7D01 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0\n"
        "   2: 0100007F:7D02 0100007F:9C41 06 00000000:00000000 00:00000000 00000000     0\n"
        "   garbage\n";
    std::vector<bool> held(65536);
    ledger::add_held_ports(tcp, true, held);
    ck_assert(held[32000] && held[32001] && !held[32002]);
    const char *udp6 = "  sl  local_address                         remote_address   st\n"
                       "  5: 00000000000000000000000000000000:9C40 "
                       "00000000000000000000000000000000:0000 07\n";
    std::vector<bool> udp(65536);
    ledger::add_held_ports(udp6, false, udp);
    ck_assert(udp[40000]);
}
END_TEST

START_TEST(processes_that_run_and_that_ended)
{
    const Process me = ledger::this_process();
    ck_assert_int_eq(me.pid, getpid());
    ck_assert_uint_ne(me.start, 0);
    ck_assert(ledger::is_running(me));
    ck_assert(!ledger::is_running({me.pid, me.start + 1})); // the pid, reused
    ck_assert(ledger::is_running({me.pid, 0}));             // start unknown
    ck_assert(ledger::process_of(me.pid) == me);            // another's, by its pid
    const pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        _exit(0);
    }
    // A zombie has ended.
    for (int i = 0; i < 200 && ledger::is_running({child, 0}); ++i) {
        usleep(10000);
    }
    ck_assert(!ledger::is_running({child, 0}));
    int status = 0;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(!ledger::is_running({child, 0}));
    ck_assert(ledger::process_of(child) == (Process{child, 0})); // gone: start unknown
    const ledger::Here here = ledger::here();
    ck_assert(!here.host.empty());
    ck_assert_uint_gt(here.now, 0);
}
END_TEST

// ---------------------------------------------------------------- the file

START_TEST(file_update_under_the_lock)
{
    const std::string path = meridian_test::scratch() + "/dir/ports";
    const Process me = ledger::this_process();
    ledger::ClaimRequest request;
    request.nspace = "job";
    request.need = {2, 0};
    request.pools = pools("tcp:32000-32009");
    const std::array<std::vector<bool>, 2> held{std::vector<bool>(65536), std::vector<bool>(65536)};
    std::vector<fabric::PortPoolSpec> claimed;
    auto done = ledger::update(path, ledger::is_running, [&](auto &entries, const auto &here) {
        claimed = ledger::claim(entries, here, me, request, held);
    });
    ck_assert_msg(done.ok(), "%s", done.ok() ? "" : done.error().message.c_str());
    ck_assert_text_eq(fabric::format_static_ports(claimed), "tcp:32000-32001");
    struct stat info {
    };
    ck_assert_int_eq(stat((meridian_test::scratch() + "/dir").c_str(), &info), 0);
    ck_assert_uint_eq(info.st_mode & 0777, 0700);
    auto parsed = ledger::parse(file_text(path), path);
    ck_assert(parsed.ok() && parsed->size() == 1);
    ck_assert((*parsed)[0].ports[0] == (std::vector<std::uint16_t>{32000, 32001}));

    // Another claim while this one runs: the next ports.
    request.nspace = "second";
    done = ledger::update(path, ledger::is_running, [&](auto &entries, const auto &here) {
        claimed = ledger::claim(entries, here, me, request, held);
    });
    ck_assert(done.ok());
    ck_assert_text_eq(fabric::format_static_ports(claimed), "tcp:32002-32003");

    // A holder of the lock that does not let go: a bounded wait.
    const int fd = open((path + ".lock").c_str(), O_RDWR);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(flock(fd, LOCK_EX), 0);
    done = ledger::update(
        path, ledger::is_running, [](auto &, const auto &) {}, std::chrono::milliseconds(1000));
    ck_assert(!done.ok());
    ck_assert_int_eq(done.error().status, MERIDIAN_ERR_TIMEOUT);
    ck_assert_text_eq(done.error().message,
                      "cannot lock " + path + ".lock: another process has held it for 1 s");
    close(fd);

    // A corrupt file: refused, and left as it is.
    const std::string corrupt = "meridian-port-ledger 1\njob x host=h boot=- expect=1 since=0 ?\n";
    std::ofstream(path) << corrupt;
    bool changed = false;
    done = ledger::update(path, ledger::is_running, [&](auto &, const auto &) { changed = true; });
    ck_assert(!done.ok() && !changed);
    ck_assert_text_eq(done.error().message,
                      path + ":2:38: expected KEY=VALUE with KEY host, boot, expect, since, tcp, "
                             "udp, procs or left, found \"?\"");
    ck_assert_text_eq(file_text(path), corrupt);
}
END_TEST

START_TEST(private_directory)
{
    const std::string dir = meridian_test::scratch() + "/private";
    auto checked = ledger::check_private_directory(dir);
    ck_assert_msg(checked.ok(), "%s", checked.ok() ? "" : checked.error().message.c_str());
    ck_assert(ledger::check_private_directory(dir).ok()); // exists: fine
    ck_assert_int_eq(chmod(dir.c_str(), 0777), 0);
    checked = ledger::check_private_directory(dir);
    ck_assert(!checked.ok());
    ck_assert_text_eq(checked.error().message,
                      dir + " is not a directory of this user that only it may write (owner uid " +
                          std::to_string(getuid()) + ", mode 0777; this user is uid " +
                          std::to_string(getuid()) + ")");
    const std::string link = meridian_test::scratch() + "/link";
    ck_assert_int_eq(symlink(dir.c_str(), link.c_str()), 0);
    checked = ledger::check_private_directory(link);
    ck_assert(!checked.ok());
    ck_assert_msg(checked.error().message.find("(a symbolic link;") != std::string::npos, "%s",
                  checked.error().message.c_str());
}
END_TEST

namespace
{

void setup_root()
{
    meridian_test::make_scratch_root("meridian-ledger-test");
}

void teardown_root()
{
    meridian_test::remove_scratch_root();
}

void setup_scratch()
{
    meridian_test::make_scratch("ledger");
}

} // namespace

int main()
{
    Suite *suite = suite_create("pnet_tcp_ledger");
    TCase *text = tcase_create("text");
    tcase_add_test(text, text_round_trip);
    tcase_add_test(text, text_empty_is_an_empty_ledger);
    tcase_add_test(text, text_errors);
    suite_add_tcase(suite, text);

    TCase *rules = tcase_create("rules");
    tcase_add_test(rules, reclaim_keeps_what_may_run);
    tcase_add_test(rules, claim_skips_other_jobs_and_held_ports);
    tcase_add_test(rules, hold_shrinks_and_the_last_to_leave_gives_back);
    tcase_add_test(rules, hand_over_keeps_the_ports_for_the_heirs);
    suite_add_tcase(suite, rules);

    TCase *host = tcase_create("host");
    tcase_add_unchecked_fixture(host, setup_root, teardown_root);
    tcase_add_checked_fixture(host, setup_scratch, nullptr);
    tcase_set_timeout(host, 30);
    tcase_add_test(host, proc_net_lines);
    tcase_add_test(host, processes_that_run_and_that_ended);
    tcase_add_test(host, file_update_under_the_lock);
    tcase_add_test(host, private_directory);
    suite_add_tcase(suite, host);
    return meridian_test::run_suite(suite);
}
