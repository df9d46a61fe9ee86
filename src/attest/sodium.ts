import sodiumModule from "libsodium-wrappers";

// libsodium is WebAssembly: it must finish loading before any call. Every caller goes through here.
export async function sodium(): Promise<typeof sodiumModule> {
  await sodiumModule.ready;
  return sodiumModule;
}
