/*
 * extension.cpp — whether pg_gpu is installed in the current database, and
 * what DROP EXTENSION leaves behind.
 *
 * The library is preloaded for the whole cluster, but a database chooses pg_gpu
 * with CREATE EXTENSION.  In a database without it (never created, or dropped
 * while the library stays loaded) the planner hooks offer no GPU path, as if
 * pg_gpu.enabled were off, so `pg_gpu.force` cannot plan nodes whose SQL
 * objects are gone.  The answer is looked up once per transaction (one index
 * probe of pg_extension) and forgotten when this session creates or drops the
 * extension; another session's CREATE or DROP is seen from its next
 * transaction on.
 *
 * DROP EXTENSION pg_gpu also drops the database's entries in the GPU
 * service's column cache, so a later CREATE EXTENSION starts empty; DROP TABLE
 * drops the table's and DROP DATABASE the database's, which no query could read
 * again (a Citus shard moved away, say) but would hold GPU memory until least
 * recently used.  A DROP that rolls back has lost only cached copies: the next
 * scans cache again.
 */
extern "C" {
#include "postgres.h"

#include "access/xact.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_class.h"
#include "catalog/pg_database.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "storage/proc.h"

#include "pg_gpu.h"
}

static object_access_hook_type prev_object_access_hook = NULL;

static LocalTransactionId present_lxid = InvalidLocalTransactionId;
static Oid	present_oid = InvalidOid;

bool
PgGpuExtensionPresent(void)
{
	if (!IsTransactionState())
		return false;
	if (present_lxid != MyProc->lxid)
	{
		present_oid = get_extension_oid("pg_gpu", true);
		present_lxid = MyProc->lxid;
	}
	return OidIsValid(present_oid);
}

static void
PgGpuObjectAccess(ObjectAccessType access, Oid classId, Oid objectId, int subId, void *arg)
{
	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);
	if (access == OAT_DROP && subId == 0 && classId == RelationRelationId)
		PgGpuCacheDrop(MyDatabaseId, objectId);
	else if (access == OAT_DROP && classId == DatabaseRelationId)
		PgGpuCacheDrop(objectId, InvalidOid);
	if (classId != ExtensionRelationId)
		return;
	if (access == OAT_POST_CREATE)
		present_lxid = InvalidLocalTransactionId;
	else if (access == OAT_DROP && objectId == get_extension_oid("pg_gpu", true))
	{
		present_lxid = InvalidLocalTransactionId;
		PgGpuCacheDrop(MyDatabaseId, InvalidOid);
	}
}

void
PgGpuExtensionInit(void)
{
	prev_object_access_hook = object_access_hook;
	object_access_hook = PgGpuObjectAccess;
}
