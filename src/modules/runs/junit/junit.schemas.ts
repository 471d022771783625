import { Type, type Static } from 'typebox';

export const JUnitQuery = Type.Object(
  {
    createTcases: Type.Optional(
      Type.Boolean({
        description:
          'create test cases for the tests no marker matches, in the root folder cli-import tagged cli-import (a case of that title there is reused), and add them, and cases of the project named by markers, to the run (static_struct runs only)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type JUnitQuery = Static<typeof JUnitQuery>;

/** For the OpenAPI document only: the body is XML (or a multipart file), read and checked by the parser. */
export const JUnitBody = Type.String({
  description:
    'JUnit XML (Content-Type application/xml or text/xml), or multipart/form-data with the file in the part "file". No DOCTYPE.',
});

export const JUnitResponse = Type.Object({
  results: Type.Integer({ description: 'results recorded' }),
  unmatched: Type.Array(Type.String(), {
    description: 'names of the tests that matched no test case of the run, each once, in file order',
  }),
  created: Type.Integer({ description: 'test cases created in cli-import (createTcases)' }),
});
