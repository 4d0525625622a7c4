/* Exercises every function of the C ABI and checks what comes back.
 * Built and run by tests/c_and_python.rs; exits non-zero on the first
 * failed check. Usage: smoke DB_DIR */
#include <stdio.h>
#include <string.h>
#include <pthread.h>
#include "chronolog.h"

static int failures = 0;

#define CHECK(cond, what)                                                  \
  do {                                                                     \
    if (!(cond)) {                                                         \
      const char *err = chronolog_last_error();                            \
      fprintf(stderr, "FAIL line %d: %s (last error: %s)\n", __LINE__,     \
              what, err ? err : "none");                                   \
      failures++;                                                          \
    }                                                                      \
  } while (0)

static void *query_in_thread(void *arg) {
  ChronologDb db = *(ChronologDb *)arg;
  for (int i = 0; i < 20; i++) {
    char *json = NULL;
    if (chronolog_execute(db, "?- works_at(alice, Y) as_of 2022-01-01.", NULL, &json) !=
            CHRONOLOG_STATUS_OK ||
        strstr(json, "tencent") == NULL) {
      return (void *)1;
    }
    chronolog_free_string(json);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: smoke DB_DIR\n");
    return 2;
  }
  CHECK(strlen(chronolog_version()) > 0, "version");

  ChronologDb db = 0;
  CHECK(chronolog_open(argv[1], &db) == CHRONOLOG_STATUS_OK && db != 0, "open");
  CHECK(chronolog_last_error() == NULL, "no error after success");

  /* Which embedder: the test runs without the model. */
  char *embedder = NULL;
  CHECK(chronolog_embedder(db, &embedder) == CHRONOLOG_STATUS_OK, "embedder");
  CHECK(embedder && strstr(embedder, "\"stand_in\":true"), "the stand-in says so");
  chronolog_free_string(embedder);

  /* A script: one object per statement. */
  char *json = NULL;
  ChronologStatus st = chronolog_execute(
      db,
      ":create works_at(person: sym key, company: sym).\n"
      "works_at(alice, tencent) valid 2021-03-01.\n"
      "works_at(alice, moonshot) valid 2024-06-01.\n",
      NULL, &json);
  CHECK(st == CHRONOLOG_STATUS_OK, "create and assert");
  CHECK(json && strstr(json, "{\"created\":\"works_at\"}"), "created in JSON");
  CHECK(json && strstr(json, "\"added\":2"), "two rows added");
  CHECK(chronolog_free_string(json) == CHRONOLOG_STATUS_OK, "free");

  /* Parameters: a symbol and a time. */
  st = chronolog_execute(db, "?- works_at($p, Y) as_of $t.",
                         "{\"p\": {\"sym\": \"alice\"}, \"t\": {\"time\": \"2022-01-01\"}}",
                         &json);
  CHECK(st == CHRONOLOG_STATUS_OK, "query with parameters");
  CHECK(json && strcmp(json, "[{\"rows\":{\"columns\":[\"Y\"],\"rows\":[[\"tencent\"]]}}]") == 0,
        "as-of answer");
  chronolog_free_string(json);

  /* A syntax error: status, caret, nothing returned. */
  json = (char *)0x1; /* must be cleared */
  st = chronolog_execute(db, "?- works_at(alice Y).", NULL, &json);
  CHECK(st == CHRONOLOG_STATUS_QUERY_ERROR, "syntax error status");
  CHECK(json == NULL, "out cleared on error");
  CHECK(chronolog_last_error() && strstr(chronolog_last_error(), "1:19") &&
            strstr(chronolog_last_error(), "^"),
        "error has line:column and a caret");

  /* Bad arguments. */
  CHECK(chronolog_execute(db, NULL, NULL, &json) == CHRONOLOG_STATUS_NULL_POINTER, "null script");
  CHECK(chronolog_execute(db, "?- works_at(X, Y).", NULL, NULL) == CHRONOLOG_STATUS_NULL_POINTER,
        "null out");
  CHECK(chronolog_execute(db, "?- works_at(X, Y).", "[1]", &json) ==
            CHRONOLOG_STATUS_INVALID_ARGUMENT,
        "params not an object");
  CHECK(chronolog_execute(db, "?- works_at(\xff, Y).", NULL, &json) == CHRONOLOG_STATUS_INVALID_UTF8,
        "invalid UTF-8");
  CHECK(chronolog_execute(987654321, "?- works_at(X, Y).", NULL, &json) ==
            CHRONOLOG_STATUS_INVALID_HANDLE,
        "unknown handle");
  CHECK(chronolog_open(argv[1], NULL) == CHRONOLOG_STATUS_NULL_POINTER, "open with null out");

  /* Several threads on one handle. */
  pthread_t threads[4];
  for (int i = 0; i < 4; i++) pthread_create(&threads[i], NULL, query_in_thread, &db);
  for (int i = 0; i < 4; i++) {
    void *result = NULL;
    pthread_join(threads[i], &result);
    CHECK(result == NULL, "query from a thread");
  }

  /* Double frees and double closes are errors, not crashes. */
  st = chronolog_execute(db, "?- works_at(X, Y).", NULL, &json);
  CHECK(chronolog_free_string(json) == CHRONOLOG_STATUS_OK, "first free");
  CHECK(chronolog_free_string(json) == CHRONOLOG_STATUS_INVALID_ARGUMENT, "second free refused");
  CHECK(chronolog_free_string(NULL) == CHRONOLOG_STATUS_OK, "free NULL");
  CHECK(chronolog_close(db) == CHRONOLOG_STATUS_OK, "close");
  CHECK(chronolog_close(db) == CHRONOLOG_STATUS_INVALID_HANDLE, "second close refused");
  CHECK(chronolog_execute(db, "?- works_at(X, Y).", NULL, &json) == CHRONOLOG_STATUS_INVALID_HANDLE,
        "closed handle refused");

  /* Reopen: what was written is on disk. */
  CHECK(chronolog_open(argv[1], &db) == CHRONOLOG_STATUS_OK, "reopen");
  st = chronolog_execute(db, "?- works_at(alice, Y).", NULL, &json);
  CHECK(st == CHRONOLOG_STATUS_OK && json && strstr(json, "moonshot"), "durable");
  chronolog_free_string(json);
  CHECK(chronolog_close(db) == CHRONOLOG_STATUS_OK, "close again");

  /* The agent memory: a tenant's messages in, facts and a context out. */
  char mem_dir[4096];
  snprintf(mem_dir, sizeof mem_dir, "%s-memory", argv[1]);
  ChronologMemory mem = 0;
  CHECK(chronolog_memory_open(mem_dir, &mem) == CHRONOLOG_STATUS_OK && mem != 0, "memory open");
  char *eid = NULL;
  CHECK(chronolog_memory_add(mem, "alice", "user", "I work at Tencent in Shenzhen.", "2021-03-01",
                             NULL, &eid) == CHRONOLOG_STATUS_OK &&
            eid && strcmp(eid, "alice/e1") == 0,
        "memory add");
  chronolog_free_string(eid);
  CHECK(chronolog_memory_add(mem, "alice", "user", "Big news: I just joined Moonshot!",
                             "2024-06-01", "s2", &eid) == CHRONOLOG_STATUS_OK,
        "memory add 2");
  chronolog_free_string(eid);
  CHECK(chronolog_memory_add(mem, "a/b", "user", "x", NULL, NULL, &eid) ==
                CHRONOLOG_STATUS_INVALID_ARGUMENT &&
            eid == NULL && strstr(chronolog_last_error(), "tenant"),
        "bad tenant refused");
  CHECK(chronolog_memory_add(mem, "alice", "user", "x", "someday", NULL, &eid) ==
            CHRONOLOG_STATUS_INVALID_ARGUMENT,
        "bad time refused");
  st = chronolog_memory_consolidate(mem, &json);
  /* The background worker may have consolidated some already; after this
     call every episode is. */
  CHECK(st == CHRONOLOG_STATUS_OK && json && strstr(json, "\"episodes\":"), "consolidate");
  chronolog_free_string(json);
  st = chronolog_memory_search(mem, "alice", "Where do I work?", NULL, &json);
  CHECK(st == CHRONOLOG_STATUS_OK && json && strstr(json, "\"abstain\":false") &&
            strstr(json, "works at Moonshot"),
        "search now");
  chronolog_free_string(json);
  st = chronolog_memory_search(mem, "alice", "Where do I work?",
                               "{\"as_of\": \"2022-01-01\", \"budget\": 300}", &json);
  CHECK(st == CHRONOLOG_STATUS_OK && json && strstr(json, "works at Tencent") &&
            strstr(json, "\"budget\":300"),
        "search as of 2022");
  chronolog_free_string(json);
  CHECK(chronolog_memory_search(mem, "alice", "q", "{\"colour\": 1}", &json) ==
            CHRONOLOG_STATUS_INVALID_ARGUMENT,
        "bad search options refused");
  st = chronolog_memory_history(mem, "alice", "user", &json);
  CHECK(st == CHRONOLOG_STATUS_OK && json && strstr(json, "\"supersedes\":\"Tencent\""),
        "history");
  chronolog_free_string(json);
  /* Datalog over the memory's relations, through the memory's handle. */
  st = chronolog_memory_execute(mem,
                                "?- mem_fact(_, $t, _, works_at, Company, _, _) as_of $when.",
                                "{\"t\": {\"sym\": \"alice\"}, \"when\": {\"time\": \"2022-01-01\"}}",
                                &json);
  CHECK(st == CHRONOLOG_STATUS_OK && json &&
            strcmp(json, "[{\"rows\":{\"columns\":[\"Company\"],\"rows\":[[\"Tencent\"]]}}]") == 0,
        "memory execute: the job as of 2022");
  chronolog_free_string(json);
  st = chronolog_memory_execute(mem, "?- mem_fact(X).", NULL, &json);
  CHECK(st == CHRONOLOG_STATUS_QUERY_ERROR && json == NULL &&
            strstr(chronolog_last_error(), "mem_fact"),
        "memory execute: an arity error");
  CHECK(chronolog_memory_execute(db, "?- 1 = 1.", NULL, &json) == CHRONOLOG_STATUS_INVALID_HANDLE,
        "memory execute: a database handle is not a memory");
  /* A tenant's language, pinned before its first message: a short German
     message detection would read as English is read in German. */
  char *lang = NULL;
  CHECK(chronolog_memory_pinned_language(mem, "jana", &lang) == CHRONOLOG_STATUS_OK &&
            lang == NULL,
        "not pinned");
  CHECK(chronolog_memory_pin_language(mem, "jana", "fr") == CHRONOLOG_STATUS_INVALID_ARGUMENT &&
            strstr(chronolog_last_error(), "not a language served"),
        "a language not served is refused");
  CHECK(chronolog_memory_pin_language(mem, "jana", "de") == CHRONOLOG_STATUS_OK, "pin");
  CHECK(chronolog_memory_pinned_language(mem, "jana", &lang) == CHRONOLOG_STATUS_OK && lang &&
            strcmp(lang, "de") == 0,
        "pinned to de");
  chronolog_free_string(lang);
  CHECK(chronolog_memory_add(mem, "jana", "user", "Ich mag Jazz.", "2024-01-01", NULL, &eid) ==
            CHRONOLOG_STATUS_OK,
        "a pinned tenant's message");
  chronolog_free_string(eid);
  st = chronolog_memory_consolidate(mem, &json);
  chronolog_free_string(json);
  st = chronolog_memory_history(mem, "jana", "user", &json);
  CHECK(st == CHRONOLOG_STATUS_OK && json && strstr(json, "\"object\":\"Jazz\""),
        "read in German");
  chronolog_free_string(json);
  CHECK(chronolog_memory_pin_language(mem, "jana", NULL) == CHRONOLOG_STATUS_OK &&
            chronolog_memory_pinned_language(mem, "jana", &lang) == CHRONOLOG_STATUS_OK &&
            lang == NULL,
        "unpinned");
  st = chronolog_memory_forget(mem, "alice", "Tencent", &json);
  CHECK(st == CHRONOLOG_STATUS_OK && json && strstr(json, "\"episodes\":1"), "forget");
  chronolog_free_string(json);
  CHECK(chronolog_memory_close(mem) == CHRONOLOG_STATUS_OK, "memory close");
  CHECK(chronolog_memory_close(mem) == CHRONOLOG_STATUS_INVALID_HANDLE, "memory second close");
  CHECK(chronolog_memory_search(mem, "alice", "q", NULL, &json) == CHRONOLOG_STATUS_INVALID_HANDLE,
        "closed memory refused");
  CHECK(chronolog_memory_open(mem_dir, &mem) == CHRONOLOG_STATUS_OK, "memory reopen");
  st = chronolog_memory_search(mem, "alice", "Moonshot", NULL, &json);
  CHECK(st == CHRONOLOG_STATUS_OK && json && strstr(json, "alice/e2") &&
            strstr(json, "Shenzhen") == NULL,
        "memory durable, forgotten stays forgotten");
  chronolog_free_string(json);
  CHECK(chronolog_memory_close(mem) == CHRONOLOG_STATUS_OK, "memory close again");

  if (failures == 0) printf("all C checks passed\n");
  return failures == 0 ? 0 : 1;
}
