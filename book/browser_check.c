/* book/browser_check.c - opens a page in headless Chromium and checks what a
 * reader would see: every image loaded (naturalWidth > 0) and the page
 * logged no error; then saves a screenshot.
 *
 * It talks to Chromium over the DevTools pipe (--remote-debugging-pipe):
 * JSON messages ended by a NUL byte, written to the browser's fd 3 and read
 * from its fd 4. So it needs nothing but libc and the browser.
 *
 * Build (make book-check does it):
 *   gcc -std=c11 -O2 -Wall -Wextra book/browser_check.c -o build/book/browser_check
 * Run:
 *   browser_check [--browser chromium] [--screenshot OUT.png] [--at ELEMENT_ID]
 *                 [--min-images N] [--log FILE] [--timeout SECONDS] PAGE.html
 *
 * Exit status: 0 the page passed, 1 it did not (each failure is printed),
 * 2 a usage error or a browser that would not start or answer.
 */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t browser_pid = -1;
static char profile_dir[64] = "";
static int to_browser = -1, from_browser = -1;
static double deadline;

static int remove_entry(const char *path, const struct stat *info, int flag, struct FTW *walk)
{
    (void)info, (void)flag, (void)walk;
    return remove(path);
}

static void clean_up(void)
{
    if (browser_pid > 0) {
        kill(browser_pid, SIGKILL);
        waitpid(browser_pid, NULL, 0);
        browser_pid = -1;
    }
    if (*profile_dir) {
        nftw(profile_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        *profile_dir = '\0';
    }
}

/* The browser failed us (not the page): exit 2. */
static void give_up(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "browser_check: ");
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    clean_up();
    exit(2);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------ the pipe */

static char *inbox;
static size_t inbox_length, inbox_capacity;

static void send_message(const char *json)
{
    size_t length = strlen(json) + 1; /* the NUL ends the message */
    for (size_t sent = 0; sent < length;) {
        ssize_t n = write(to_browser, json + sent, length - sent);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            give_up("cannot write to the browser: %s", strerror(errno));
        sent += (size_t)n;
    }
}

/* The next whole message from the browser (malloc'd), or NULL when the
 * wait runs past until (a time from now()). */
static char *next_message(double until)
{
    for (;;) {
        char *end = inbox ? memchr(inbox, '\0', inbox_length) : NULL;
        if (end) {
            size_t length = (size_t)(end - inbox);
            char *message = malloc(length + 1);
            if (!message)
                give_up("out of memory");
            memcpy(message, inbox, length + 1);
            memmove(inbox, end + 1, inbox_length - length - 1);
            inbox_length -= length + 1;
            return message;
        }
        double left = until - now();
        if (left <= 0)
            return NULL;
        struct pollfd wait_for = {from_browser, POLLIN, 0};
        int ready = poll(&wait_for, 1, (int)(left * 1000) + 1);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            continue;
        if (inbox_length + 65536 > inbox_capacity) {
            inbox_capacity = 2 * inbox_capacity + 65536;
            inbox = realloc(inbox, inbox_capacity);
            if (!inbox)
                give_up("out of memory");
        }
        ssize_t n = read(from_browser, inbox + inbox_length, inbox_capacity - inbox_length);
        if (n == 0)
            give_up("the browser closed its pipe (did it start? see its log)");
        if (n < 0 && errno != EINTR)
            give_up("cannot read from the browser: %s", strerror(errno));
        if (n > 0)
            inbox_length += (size_t)n;
    }
}

/* The JSON string after "key":" in message, unescaped (malloc'd), or NULL. */
static char *json_string(const char *message, const char *key)
{
    char pattern[128];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *start = strstr(message, pattern);
    if (!start)
        return NULL;
    start += strlen(pattern);
    char *value = malloc(strlen(start) + 1), *out = value;
    if (!value)
        give_up("out of memory");
    for (const char *c = start; *c && *c != '"'; c++) {
        if (*c == '\\' && c[1]) {
            c++;
            *out++ = *c == 'n' ? '\n' : *c == 't' ? '\t' : *c;
        } else {
            *out++ = *c;
        }
    }
    *out = '\0';
    return value;
}

/* ------------------------------------------------------------ the page's events */

static int errors_seen, page_loaded;

static void note_error(const char *kind, const char *message, const char *key)
{
    char *text = json_string(message, key);
    errors_seen++;
    printf("page error (%s): %.300s\n", kind, text ? text : message);
    free(text);
}

static void handle_event(const char *message)
{
    if (strstr(message, "\"method\":\"Page.loadEventFired\""))
        page_loaded = 1;
    else if (strstr(message, "\"method\":\"Runtime.exceptionThrown\""))
        note_error("uncaught exception", message, "description");
    else if (strstr(message, "\"method\":\"Runtime.consoleAPICalled\"") &&
             (strstr(message, "\"type\":\"error\"") || strstr(message, "\"type\":\"assert\"")))
        note_error("console.error", message, "value");
    else if (strstr(message, "\"method\":\"Log.entryAdded\"") &&
             strstr(message, "\"level\":\"error\""))
        note_error("browser log", message, "text");
    else if (strstr(message, "\"method\":\"Inspector.targetCrashed\""))
        give_up("the page crashed");
}

static int next_id = 1;

/* Sends a command (to the page when session is set) and returns its reply,
 * handling the events that arrive meanwhile. */
static char *command(const char *session, const char *method, const char *params)
{
    int id = next_id++;
    size_t length = strlen(method) + strlen(params) + (session ? strlen(session) : 0) + 128;
    char *json = malloc(length);
    if (!json)
        give_up("out of memory");
    snprintf(json, length, "{\"id\":%d,\"method\":\"%s\",\"params\":%s%s%s%s}", id, method, params,
             session ? ",\"sessionId\":\"" : "", session ? session : "", session ? "\"" : "");
    send_message(json);
    free(json);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "{\"id\":%d,", id);
    for (;;) {
        char *message = next_message(deadline);
        if (!message)
            give_up("no reply to %s in time", method);
        if (strncmp(message, prefix, strlen(prefix)) == 0) {
            if (strncmp(message + strlen(prefix), "\"error\"", 7) == 0)
                give_up("%s failed: %.300s", method, message);
            return message;
        }
        handle_event(message);
        free(message);
    }
}

/* Lets events arrive for a while (late errors, the load event). */
static void drain(double seconds, int until_loaded)
{
    double until = now() + seconds;
    while (!(until_loaded && page_loaded)) {
        char *message = next_message(until);
        if (!message)
            return;
        handle_event(message);
        free(message);
    }
}

/* ------------------------------------------------------------ the browser */

static void start_browser(const char *browser, const char *log_path)
{
    int commands[2], replies[2];
    if (pipe(commands) != 0 || pipe(replies) != 0)
        give_up("pipe: %s", strerror(errno));
    snprintf(profile_dir, sizeof profile_dir, "/tmp/browser_check.XXXXXX");
    if (!mkdtemp(profile_dir))
        give_up("mkdtemp: %s", strerror(errno));
    char profile_flag[128];
    snprintf(profile_flag, sizeof profile_flag, "--user-data-dir=%s", profile_dir);

    browser_pid = fork();
    if (browser_pid < 0)
        give_up("fork: %s", strerror(errno));
    if (browser_pid == 0) {
        /* move the pipe ends out of the way, then onto fds 3 and 4 */
        int read_end = fcntl(commands[0], F_DUPFD, 10);
        int write_end = fcntl(replies[1], F_DUPFD, 10);
        int log = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (read_end < 0 || write_end < 0 || dup2(read_end, 3) < 0 || dup2(write_end, 4) < 0)
            _exit(126);
        if (log >= 0) {
            dup2(log, 1);
            dup2(log, 2);
        }
        for (int fd = 5; fd < 64; fd++)
            close(fd);
        char *arguments[] = {(char *)browser, "--headless", "--no-sandbox", "--disable-gpu",
                             "--no-first-run", "--no-default-browser-check",
                             "--disable-background-networking", "--disable-component-update",
                             "--disable-sync", "--disable-extensions", "--mute-audio",
                             "--hide-scrollbars", profile_flag, "--remote-debugging-pipe", NULL};
        execvp(browser, arguments);
        fprintf(stderr, "cannot run %s: %s\n", browser, strerror(errno));
        _exit(127);
    }
    close(commands[0]);
    close(replies[1]);
    to_browser = commands[1];
    from_browser = replies[0];
    signal(SIGPIPE, SIG_IGN);
}

static int base64_value(char c)
{
    const char *digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *at = c ? strchr(digits, c) : NULL;
    return at ? (int)(at - digits) : -1;
}

static void save_base64(const char *text, const char *path)
{
    FILE *file = fopen(path, "wb");
    if (!file)
        give_up("cannot write %s: %s", path, strerror(errno));
    unsigned bits = 0;
    int count = 0;
    for (const char *c = text; *c && *c != '='; c++) {
        int value = base64_value(*c);
        if (value < 0)
            give_up("the screenshot is not base64");
        bits = (bits << 6) | (unsigned)value;
        count += 6;
        if (count >= 8) {
            count -= 8;
            fputc((int)((bits >> count) & 0xff), file);
        }
    }
    if (fclose(file) != 0)
        give_up("cannot write %s", path);
}

static void usage(void)
{
    fprintf(stderr, "usage: browser_check [--browser chromium] [--screenshot OUT.png] "
                    "[--at ELEMENT_ID] [--min-images N] [--log FILE] [--timeout SECONDS] "
                    "PAGE.html\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *browser = "chromium", *screenshot = NULL, *at = NULL, *page = NULL;
    const char *log_path = "/dev/null";
    int min_images = 0;
    double timeout = 90;
    for (int k = 1; k < argc; k++) {
        int has_value = k + 1 < argc;
        if (strcmp(argv[k], "--browser") == 0 && has_value)
            browser = argv[++k];
        else if (strcmp(argv[k], "--screenshot") == 0 && has_value)
            screenshot = argv[++k];
        else if (strcmp(argv[k], "--at") == 0 && has_value)
            at = argv[++k];
        else if (strcmp(argv[k], "--min-images") == 0 && has_value)
            min_images = atoi(argv[++k]);
        else if (strcmp(argv[k], "--log") == 0 && has_value)
            log_path = argv[++k];
        else if (strcmp(argv[k], "--timeout") == 0 && has_value)
            timeout = atof(argv[++k]);
        else if (argv[k][0] == '-' || page)
            usage();
        else
            page = argv[k];
    }
    if (!page)
        usage();
    char absolute[PATH_MAX];
    if (!realpath(page, absolute))
        give_up("%s: %s", page, strerror(errno));
    if (at && strspn(at, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") !=
                  strlen(at))
        give_up("--at takes an element id of letters, digits, '-' and '_'");

    deadline = now() + timeout;
    start_browser(browser, log_path);

    char *reply = command(NULL, "Target.createTarget", "{\"url\":\"about:blank\"}");
    char *target = json_string(reply, "targetId");
    free(reply);
    if (!target)
        give_up("no target id from the browser");
    char params[PATH_MAX + 256];
    snprintf(params, sizeof params, "{\"targetId\":\"%s\",\"flatten\":true}", target);
    reply = command(NULL, "Target.attachToTarget", params);
    char *session = json_string(reply, "sessionId");
    free(reply);
    if (!session)
        give_up("no session id from the browser");

    free(command(session, "Page.enable", "{}"));
    free(command(session, "Runtime.enable", "{}"));
    free(command(session, "Log.enable", "{}"));
    free(command(session, "Emulation.setDeviceMetricsOverride",
                 "{\"width\":1200,\"height\":1400,\"deviceScaleFactor\":1,\"mobile\":false}"));
    snprintf(params, sizeof params, "{\"url\":\"file://%s\"}", absolute);
    reply = command(session, "Page.navigate", params);
    char *navigation_error = json_string(reply, "errorText");
    if (navigation_error)
        give_up("cannot open %s: %s", absolute, navigation_error);
    free(reply);
    drain(deadline - now(), 1);
    if (!page_loaded)
        give_up("the page did not finish loading in time");

    /* every image decoded, then the count of those with no pixels */
    const char *images_check =
        "{\"expression\":\"(async () => { const images = Array.from(document.images); "
        "await Promise.all(images.map(i => i.decode().catch(() => null))); "
        "const broken = images.filter(i => !i.complete || i.naturalWidth === 0); "
        "return images.length + ' ' + broken.length + ' ' + broken.map(i => (i.id || i.alt || "
        "'image').replace(/[^A-Za-z0-9 ._-]/g, '').slice(0, 60)).join(', '); })()\","
        "\"awaitPromise\":true,\"returnByValue\":true}";
    reply = command(session, "Runtime.evaluate", images_check);
    char *result = json_string(reply, "value");
    free(reply);
    int images = -1, broken = -1, used = 0;
    if (!result || sscanf(result, "%d %d %n", &images, &broken, &used) < 2)
        give_up("cannot read the images' state from the page");
    drain(0.5, 0); /* errors logged just after load */

    int failures = errors_seen;
    if (broken > 0) {
        printf("%d of %d images did not load: %s\n", broken, images, result + used);
        failures++;
    }
    if (images < min_images) {
        printf("%d images on the page, expected at least %d\n", images, min_images);
        failures++;
    }
    if (screenshot) {
        if (at) {
            snprintf(params, sizeof params,
                     "{\"expression\":\"document.getElementById('%s').scrollIntoView()\"}", at);
            free(command(session, "Runtime.evaluate", params));
            drain(0.3, 0);
        }
        reply = command(session, "Page.captureScreenshot", "{\"format\":\"png\"}");
        char *data = json_string(reply, "data");
        if (!data)
            give_up("no screenshot data");
        save_base64(data, screenshot);
        free(data);
        free(reply);
    }
    send_message("{\"id\":999999,\"method\":\"Browser.close\",\"params\":{}}");
    for (int k = 0; k < 50 && browser_pid > 0; k++) {
        if (waitpid(browser_pid, NULL, WNOHANG) == browser_pid)
            browser_pid = -1; /* gone: nothing left to stop */
        else
            nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    clean_up();

    printf("%s: %d images, %d broken, %d page errors%s%s\n", page, images, broken, errors_seen,
           screenshot ? "; screenshot " : "", screenshot ? screenshot : "");
    free(result);
    free(session);
    free(target);
    return failures ? 1 : 0;
}
