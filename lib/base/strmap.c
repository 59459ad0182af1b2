/* strmap.c - string keys to fixed-size values, insertion ordered: the
 * aggregations (folded stacks, call-graph nodes and edges, stats) key on
 * names and print in a stable order. */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

struct entry {
	char *key;
	unsigned hash;
	void *val;
};

struct nop_strmap {
	size_t valsize;
	struct entry *v; /* insertion order */
	size_t n, cap;
	size_t *index; /* open addressing into v, +1; 0 empty */
	size_t icap;
};

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

struct nop_strmap *nop_strmap_new(size_t valsize)
{
	struct nop_strmap *m = calloc(1, sizeof(*m));

	if (m) {
		m->valsize = valsize;
		m->icap = 64;
		m->index = calloc(m->icap, sizeof(*m->index));
		if (!m->index) {
			free(m);
			m = NULL;
		}
	}
	return m;
}

static size_t *find(const struct nop_strmap *m, const char *key, unsigned h)
{
	for (size_t i = h & (m->icap - 1);; i = (i + 1) & (m->icap - 1)) {
		size_t *p = &m->index[i];

		if (!*p || (m->v[*p - 1].hash == h && !strcmp(m->v[*p - 1].key, key)))
			return p;
	}
}

static int rehash(struct nop_strmap *m)
{
	size_t ncap = m->icap * 2, *ni = calloc(ncap, sizeof(*ni));

	if (!ni)
		return -1;
	free(m->index);
	m->index = ni;
	m->icap = ncap;
	for (size_t k = 0; k < m->n; k++)
		*find(m, m->v[k].key, m->v[k].hash) = k + 1;
	return 0;
}

void *nop_strmap_get(struct nop_strmap *m, const char *key)
{
	unsigned h = hash(key);
	size_t *p = find(m, key, h);
	struct entry e;

	if (*p)
		return m->v[*p - 1].val;
	if ((m->n + 1) * 2 > m->icap) {
		if (rehash(m))
			return NULL;
		p = find(m, key, h);
	}
	e.key = strdup(key);
	e.hash = h;
	e.val = calloc(1, m->valsize);
	if (!e.key || !e.val || nop_grow((void **)&m->v, &m->cap, m->n + 1, sizeof(*m->v))) {
		free(e.key);
		free(e.val);
		return NULL;
	}
	m->v[m->n++] = e;
	*p = m->n;
	return e.val;
}

void *nop_strmap_find(const struct nop_strmap *m, const char *key)
{
	size_t *p = find(m, key, hash(key));

	return *p ? m->v[*p - 1].val : NULL;
}

size_t nop_strmap_size(const struct nop_strmap *m)
{
	return m->n;
}

void *nop_strmap_at(const struct nop_strmap *m, size_t i, const char **key)
{
	if (key)
		*key = m->v[i].key;
	return m->v[i].val;
}

void nop_strmap_free(struct nop_strmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].key);
		free(m->v[i].val);
	}
	free(m->v);
	free(m->index);
	free(m);
}
