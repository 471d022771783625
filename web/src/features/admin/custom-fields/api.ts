import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import { queryKeys } from '../../../api/keys';
import type { paths } from '../../../api/schema';

/** The tenant's custom fields (admin), in their order. */
export const customFieldsQuery = queryOptions({
  queryKey: queryKeys.tenantCustomFields(),
  queryFn: async () => (await unwrap(api.GET('/api/public/v0/custom-field'))).customFields,
});
export type CustomField = Awaited<ReturnType<typeof customFieldsQuery.queryFn & {}>>[number];
export type FieldType = CustomField['type'];

export type CreateFieldBody = NonNullable<
  paths['/api/public/v0/custom-field']['post']['requestBody']
>['content']['application/json'];
export type UpdateFieldBody = NonNullable<
  paths['/api/public/v0/custom-field/{id}']['patch']['requestBody']
>['content']['application/json'];

export const createField = (body: CreateFieldBody) =>
  unwrap(api.POST('/api/public/v0/custom-field', { body }));

export const updateField = (id: string, body: UpdateFieldBody) =>
  unwrap(api.PATCH('/api/public/v0/custom-field/{id}', { params: { path: { id } }, body }));

export const orderFields = (ids: string[]) =>
  unwrap(api.POST('/api/public/v0/custom-field/order', { body: { ids } }));

export const deleteField = (id: string) =>
  unwrap(api.DELETE('/api/public/v0/custom-field/{id}', { params: { path: { id } } }));

/** How many cases and versions hold a value: what a deletion removes. */
export const fieldUsageQuery = (id: string) =>
  queryOptions({
    queryKey: queryKeys.customFieldUsage(id),
    queryFn: () => unwrap(api.GET('/api/public/v0/custom-field/{id}/usage', { params: { path: { id } } })),
    staleTime: 0,
  });

/** Every project's key: the case editor and the repository read each project's fields under it. */
export const everyProjectKey = queryKeys.projects();

export const TYPE_NAMES: Record<FieldType, string> = {
  text: 'Text',
  dropdown: 'Dropdown',
  checkbox: 'Checkbox',
  richtext: 'Rich text',
};
