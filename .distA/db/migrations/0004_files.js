// Tables of the uploaded files: metadata here, the bytes in the file store (`<dataDir>/files` by default).
// Frozen once shipped: never edit a migration that has landed; add a new one.
export async function up(db) {
    await db.schema
        .createTable('files')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('storage_key', 'text', (c) => c.notNull().unique())
        .addColumn('file_name', 'text', (c) => c.notNull())
        .addColumn('mime_type', 'text', (c) => c.notNull())
        // bigint: a configured file-size limit may exceed 2 GiB.
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('sha256', 'text', (c) => c.notNull())
        .addColumn('uploaded_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
    await db.schema.createIndex('files_tenant_idx').on('files').columns(['tenant_id', 'created_at']).execute();
}
export async function down(db) {
    await db.schema.dropTable('files').execute();
}
//# sourceMappingURL=0004_files.js.map