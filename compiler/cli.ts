export async function main(argv: string[]): Promise<number> { console.log(argv); return 0; }
