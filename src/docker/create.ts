/**
 * Every container mcpbox makes is created here, with its options in the request's body only. dockerode's own
 * createContainer also copies every option into the URL (docker-modem sends `opts._query || opts` as the query string
 * of a path that ends in `?`): the container's Env, the secrets in it, its command and its labels stood in the
 * request line `POST /containers/create?name=...&Env=API_TOKEN%3D<value>...`, which an engine logs at debug level
 * (dockerd's "Calling POST ..."), a proxy in front of a TCP engine logs, and which has a length limit. The Engine API
 * reads the create options from the body and only `name` (and `platform`) from the query: the query holds the name
 * alone.
 */
import type Docker from "dockerode";
import type { ContainerCreateOptions } from "dockerode";

export interface Created {
  Id: string;
  /** the engine's warnings (e.g. no swap limit support), which dockerode's createContainer drops */
  Warnings?: string[] | null;
}

/** dockerode's createContainer's statuses, so an error reads as before (statusOf, messageOf) */
const CREATE_STATUSES: Record<number, true | string> = { 200: true, 201: true, 400: "bad parameter", 404: "no such container", 406: "impossible to attach", 500: "server error" };

/** Creates a container from `options` (its name in the query, the rest in the body); the engine's answer. */
export function createContainerRaw(docker: Docker, options: ContainerCreateOptions, statusCodes: Record<number, true | string> = CREATE_STATUSES): Promise<Created> {
  const { name, ...body } = options;
  return new Promise((resolve, reject) => {
    docker.modem.dial(
      { path: "/containers/create?", method: "POST", options: { _query: name === undefined ? {} : { name }, _body: body }, statusCodes },
      (err: unknown, data: unknown) => (err ? reject(err) : resolve(data as Created)),
    );
  });
}

/** The same, as dockerode's createContainer answers: the container's handle. */
export async function createContainer(docker: Docker, options: ContainerCreateOptions): Promise<Docker.Container> {
  return docker.getContainer((await createContainerRaw(docker, options)).Id);
}
