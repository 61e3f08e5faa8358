" SPDX-License-Identifier: GPL-3.0-or-later
" The ftplugins' mappings and their undoing, as the plugins of Vim's own runtime make them: every
" action is a buffer-local <Plug>(maildex-NAME) mapping; its default key maps to it unless the user
" turned the defaults off (g:maildex_no_mappings, or Vim's g:no_plugin_maps) or already maps a key
" to that <Plug> (hasmapto()). Every mapping made, and whatever else an ftplugin asks, is added to
" b:undo_ftplugin, which Vim runs when the buffer's filetype changes. Nothing global is mapped here.
let s:cpo_save = &cpo
set cpo&vim

" MODES ('n', 'x', 'nx'): <Plug>(maildex-NAME) runs RHS; KEYS (a key, a list of keys, or '')
" map to it by default. SILENT (1 by default) is 0 for a mapping that leaves a command line for
" the user to finish.
function! maildex#map#plug(modes, name, rhs, keys, ...) abort
  let l:plug = '<Plug>(maildex-' . a:name . ')'
  let l:silent = get(a:, 1, 1) ? '<silent> ' : ''
  let l:keys = type(a:keys) == type([]) ? a:keys : filter([a:keys], 'v:val !=# ""')
  for l:mode in split(a:modes, '\zs')
    let l:defaults = maildex#map#defaults() && !hasmapto(l:plug, l:mode)
    execute l:mode . 'noremap <buffer> ' . l:silent . l:plug . ' ' . a:rhs
    call maildex#map#undo('silent! ' . l:mode . 'unmap <buffer> ' . l:plug)
    for l:key in l:defaults ? l:keys : []
      execute l:mode . 'map <buffer> ' . l:key . ' ' . l:plug
      call maildex#map#undo('silent! ' . l:mode . 'unmap <buffer> ' . l:key)
    endfor
  endfor
endfunction

" Whether default keys are wanted: not when g:maildex_no_mappings is 1, nor when Vim's
" g:no_plugin_maps exists (Vim's convention: its existence turns every plugin's keys off).
function! maildex#map#defaults() abort
  return !get(g:, 'maildex_no_mappings', 0) && !exists('g:no_plugin_maps')
endfunction

" Adds COMMAND to what b:undo_ftplugin runs (after what another ftplugin of the buffer put there).
function! maildex#map#undo(command) abort
  let l:undo = get(b:, 'undo_ftplugin', '')
  " no space before the bar: :unmap would take it as part of the key (:help map-trailing-white)
  let b:undo_ftplugin = (l:undo ==# '' ? '' : l:undo . '|') . a:command
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
